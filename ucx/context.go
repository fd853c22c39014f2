package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"sort"
	"sync"
	"unsafe"
)

// Options configure a Context.
type Options struct {
	// Config overrides UCX configuration variables after the UCX_*
	// environment has been read; keys are names without the UCX_ prefix,
	// e.g. {"TLS": "tcp"}.
	Config map[string]string
	// Env holds settings that UCX reads only from the UCX_* environment,
	// when a context or worker opens its transports (names without the
	// UCX_ prefix, e.g. {"TCP_SNDBUF": "384K"}): UCX 1.13 applies Config to
	// no transport (it warns of such keys as invalid). They are in the
	// environment only while NewContext and the context's NewWorker run, so
	// they reach neither another context of the process nor a child process.
	Env map[string]string
	// ErrMode is the error handling mode of the context's endpoints.
	ErrMode ErrMode
}

// ErrMode selects how endpoints handle peer failure.
type ErrMode int

const (
	// ErrModeNone (UCP_ERR_HANDLING_MODE_NONE) lets UCX use every
	// transport, shared memory included. A peer that vanishes is noticed
	// only as a wait that times out.
	ErrModeNone ErrMode = iota
	// ErrModePeer (UCP_ERR_HANDLING_MODE_PEER) turns peer failures into
	// errors on the endpoint and its requests. UCX 1.13 then uses only
	// transports with peer failure support: tcp, not sm/posix/sysv, so
	// with UCX_TLS=sm endpoint creation fails with "Destination is unreachable".
	ErrModePeer
)

// Context is a UCP application context (ucp_init) with the TAG, RMA and
// WAKEUP features. It is safe for concurrent use by several workers.
type Context struct {
	mu      sync.Mutex
	h       C.ucp_context_h
	errMode ErrMode
	env     map[string]string // Options.Env, for the workers
}

// NewContext initialises UCP. The UCX_* environment variables are honoured,
// with opts.Env (opts may be nil) in force meanwhile; opts.Config overrides
// them.
func NewContext(opts *Options) (*Context, error) {
	envMu.Lock()
	defer envMu.Unlock()
	if opts != nil {
		defer setEnv(opts.Env)()
	}
	var cfg *C.ucp_config_t
	if err := statusErr("config_read", C.ucp_config_read(nil, nil, &cfg)); err != nil {
		return nil, err
	}
	defer C.ucp_config_release(cfg)
	if opts != nil {
		keys := make([]string, 0, len(opts.Config))
		for k := range opts.Config {
			keys = append(keys, k)
		}
		sort.Strings(keys) // deterministic order for reproducible errors
		for _, k := range keys {
			ck, cv := C.CString(k), C.CString(opts.Config[k])
			st := C.ucp_config_modify(cfg, ck, cv)
			C.free(unsafe.Pointer(ck))
			C.free(unsafe.Pointer(cv))
			if err := statusErr("config_modify "+k+"="+opts.Config[k], st); err != nil {
				return nil, err
			}
		}
	}
	c := &Context{}
	if opts != nil {
		c.errMode, c.env = opts.ErrMode, opts.Env
	}
	if err := statusErr("init", C.cu_init(cfg, &c.h)); err != nil {
		return nil, err
	}
	return c, nil
}

// handle returns the UCP handle, or an error after Close.
func (c *Context) handle() (C.ucp_context_h, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return nil, ErrClosed
	}
	return c.h, nil
}

// Close releases the context (ucp_cleanup). Its workers and memory
// registrations must be released first.
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h != nil {
		C.ucp_cleanup(c.h)
		c.h = nil
	}
	return nil
}
