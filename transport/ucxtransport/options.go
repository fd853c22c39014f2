package ucxtransport

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/ucx"
)

// Options configure Join.
type Options struct {
	KV         kvs.KV        // rendezvous store
	Namespace  string        // key prefix for this coupled run, e.g. "couplet/dtf/<job>"; unique per run
	Components []string      // component names in config order
	Comp       int           // this process's component index
	Comm       mpi.Comm      // this component's own communicator: collectives inside the component
	Timeout    time.Duration // how long to wait for the other components to register (0: DefaultTimeout)
	UCX        *ucx.Options  // context options (nil: defaults from the UCX_* environment)
	// ChunkBytes is the largest UCX message a block travels in; bigger
	// blocks go as several messages (0: DefaultChunkBytes).
	ChunkBytes int64
	// RecvRuns receives a block that is not one run of its buffer straight
	// into its rows (UCX's iov datatype) instead of into staging that is
	// then unpacked. That saves the receiver a copy where UCX's rendezvous
	// arrives as active messages, copied out of its receive buffers anyway:
	// over tcp, whose memory has no remote keys (case 6a of couplet bench,
	// three interleaved pairs of launches each: 2.19-2.32 GB/s at 64 MiB
	// against 1.79-2.07 staged, 2.04-2.17 at 256 MiB against 2.00-2.06).
	// Over shared memory it costs UCX its cross-memory put (0.47-0.51 GB/s
	// against 3.82-4.39). Join turns it on when UCX is left to the
	// environment and UCX_TLS is tcp alone.
	RecvRuns bool
	// SingleCopy moves a block of at least cma.MinBlock bytes between two
	// ranks of one node that both turned it on with one copy: the sender
	// sends a descriptor of its block (package cma), the receiver copies
	// the block straight out of the sender's memory (a mapping of it for
	// memory from cma.Alloc, else process_vm_readv) and answers. Over UCX's
	// shared memory a block otherwise takes two copies (UCX's cross-memory
	// put into staging, then the unpack into its rows). Join turns it on
	// when UCX is left to the environment, cma.Env turns it on, and UCX_TLS
	// is not tcp alone (tcp stands for ranks on different nodes). It is off
	// unless asked for, as over MPI: from memory of 4 KiB pages not from
	// cma.Alloc, the kernel's read is slower than the two copies.
	SingleCopy bool
}

// DefaultTimeout bounds the wait for peers when Options.Timeout is 0. It
// also bounds KVS look-ups of peer addresses.
const DefaultTimeout = 2 * time.Minute

// DefaultChunkBytes is the default Options.ChunkBytes. A block travels as
// a train of rendezvous messages of this size, so that the receiver of a
// packed block unpacks one chunk while the next one lands (see blockRecv),
// and it stays far below the 4 GiB at which UCX protocols misbehave. With
// 4 MiB the 256 MiB exchange over shared memory measured faster than with
// 1 MiB (more messages) or 1 GiB (no overlap).
const DefaultChunkBytes = 4 << 20

// check validates the options; every rank of a component sees the same
// options, so all fail alike.
func (o *Options) check() error {
	switch {
	case o.KV == nil:
		return fmt.Errorf("ucxtransport: no KVS")
	case o.Namespace == "":
		return fmt.Errorf("ucxtransport: empty namespace")
	case o.Comp < 0 || o.Comp >= len(o.Components):
		return fmt.Errorf("ucxtransport: component index %d outside the %d components %v", o.Comp, len(o.Components), o.Components)
	case o.Comm.IsNull():
		return fmt.Errorf("ucxtransport: null communicator")
	case o.ChunkBytes < 0:
		return fmt.Errorf("ucxtransport: negative chunk size %d", o.ChunkBytes)
	}
	seen := map[string]bool{}
	for _, c := range o.Components {
		if seen[c] {
			return fmt.Errorf("ucxtransport: component %q listed twice in %v", c, o.Components)
		}
		seen[c] = true
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ChunkBytes == 0 {
		o.ChunkBytes = DefaultChunkBytes
	}
	if o.UCX == nil {
		tls := os.Getenv("UCX_TLS")
		o.UCX = defaultUCX(tls)
		o.RecvRuns = o.RecvRuns || tcpOnly(tls)
		on, err := cma.Enabled()
		if err != nil {
			return fmt.Errorf("ucxtransport: %w", err)
		}
		o.SingleCopy = o.SingleCopy || (on && !tcpOnly(tls))
		o.UCX.Env = ucx.TCPDefaults(tls, ucx.SendBufferExchange, os.LookupEnv)
		maps.Copy(o.UCX.Env, rndvDefaults(os.LookupEnv))
	}
	return nil
}

// defaultUCX picks the error mode for the UCX_TLS setting: peer failure
// handling needs transports that support it, which in UCX 1.13 means tcp
// only (with it, shared memory endpoints fail as unreachable).
func defaultUCX(tls string) *ucx.Options {
	o := &ucx.Options{ErrMode: ucx.ErrModeNone}
	if tcpOnly(tls) {
		o.ErrMode = ucx.ErrModePeer
	}
	return o
}

// tcpOnly reports whether tls (a UCX_TLS value) names tcp and nothing else.
func tcpOnly(tls string) bool {
	if tls == "" {
		return false
	}
	for _, t := range strings.Split(tls, ",") {
		if strings.TrimSpace(t) != "tcp" {
			return false
		}
	}
	return true
}

// rndvScheme is UCX's rendezvous scheme unless UCX_RNDV_SCHEME says
// otherwise. With put_zcopy the sender copies a large message into the
// receiver's buffer (over shared memory with cross-memory attach, over tcp
// by writing its socket), so sender and receiver share the two copies of
// a packed block, as MPI's two-copy path does. UCX's automatic choice over
// shared memory is get_zcopy, which leaves both the copy and the unpack to
// the receiver while the sender idles.
const rndvScheme = "put_zcopy"

// rndvDefaults returns the UCX rendezvous settings that the environment
// (read through lookup) leaves unset.
func rndvDefaults(lookup func(string) (string, bool)) map[string]string {
	cfg := map[string]string{}
	if _, set := lookup("UCX_RNDV_SCHEME"); !set {
		cfg["RNDV_SCHEME"] = rndvScheme
	}
	return cfg
}
