package main

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/couplet-hpc/couplet/dtf"
	dtfcfg "github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// ncidBase is the first coupled ncid; it equals COUPLET_NCID_BASE in capi.h.
const ncidBase = C.COUPLET_NCID_BASE

// Routes that couplet_route reports to the C side of create/open.
const (
	routeForward  = 0 // the real libpnetcdf alone
	routeTransfer = 1 // a coupled file in transfer mode: Go only
	routeFile     = 2 // a coupled file in file mode: libpnetcdf plus a dtf session
)

var (
	mu       sync.Mutex                // serialises the Go side
	files    = map[int]*pnetcdf.File{} // coupled ncid -> file
	nextID   = int(ncidBase)
	sessions = map[int]*dtf.FileSession{} // real ncid -> its file-mode session
	opening  = map[int]*dtf.FileSession{} // token -> session whose open is under way
	nextTok  int
	initDone bool                               // the lazy start was attempted (or dtf_init was called)
	initErr  error                              // why the lazy start failed
	debug    = os.Getenv("COUPLET_DEBUG") != "" // tell stderr how each file is routed
)

// status turns err into a PnetCDF code, telling stderr what the code alone
// cannot: errors with detail (a timeout, a missing box) are printed.
func status(err error) C.int {
	if err == nil {
		return 0
	}
	var code nc.Error
	if !errors.As(err, &code) || error(code) != err {
		fmt.Fprintln(os.Stderr, message(err))
	}
	return C.int(nc.Code(err))
}

// message is err as a line for stderr with exactly one "couplet: " prefix,
// whatever prefixes the layers below put on it.
func message(err error) string {
	s := err.Error()
	for strings.HasPrefix(s, "couplet: ") {
		s = strings.TrimPrefix(s, "couplet: ")
	}
	return "couplet: " + s
}

// canonical is the absolute, cleaned path of p with the symbolic links of
// its directory resolved, so that a writer's absolute path and a reader's
// relative path to the same file name the same coupled file.
func canonical(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(d, base)
	}
	return abs
}

var (
	lazyCfg    *dtfcfg.Config // the config, loaded to route files before the runtime starts
	lazyCfgErr error
)

// claimed reports whether the config names path when the runtime has not
// started (no config: never). A file no [FILE] names never starts it.
func claimed(path string) (bool, error) {
	if os.Getenv("DTF_INI_FILE") == "" {
		return false, nil
	}
	if lazyCfg == nil && lazyCfgErr == nil {
		lazyCfg, lazyCfgErr = dtfcfg.LoadConfigEnv("")
	}
	if lazyCfgErr != nil {
		return false, lazyCfgErr
	}
	_, ok := lazyCfg.FileFor(path)
	return ok, nil
}

// ensureInit starts the coupling runtime on the first create/open when
// DTF_INI_FILE names a config and the program did not call dtf_init.
func ensureInit() error {
	if initDone || dtf.Active() {
		return initErr
	}
	initDone = true
	if os.Getenv("DTF_INI_FILE") == "" {
		return nil
	}
	if err := dtf.Init("", os.Getenv("COUPLET_COMPONENT")); err != nil {
		initErr = fmt.Errorf("starting the coupling runtime (DTF_INI_FILE=%s): %w", os.Getenv("DTF_INI_FILE"), err)
	}
	return initErr
}

// file returns the coupled file behind ncid.
func file(ncid C.int) (*pnetcdf.File, error) {
	if f, ok := files[int(ncid)]; ok {
		return f, nil
	}
	return nil, nc.EBADID
}

//export couplet_route
func couplet_route(commp *unsafe.Pointer, path *C.char, create, mode C.int, token *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	p := canonical(C.GoString(path))
	if !dtf.Active() {
		if ok, err := claimed(p); err != nil || !ok {
			return status(err) // routeForward when err is nil
		}
	}
	if err := ensureInit(); err != nil {
		return status(err)
	}
	coupled, fmode := dtf.Claims(p)
	if debug {
		fmt.Fprintf(os.Stderr, "couplet: %s: coupled=%v mode=%q runtime=%v\n", p, coupled, fmode, dtf.Active())
	}
	if !coupled {
		return routeForward
	}
	if *commp == mpi.World().Ptr() {
		*commp = dtf.Comm().Ptr() // MPMD: the component, not both of them
	}
	if fmode != dtfcfg.ModeFile {
		return routeTransfer
	}
	writer := create != 0 || int(mode)&nc.WRITE != 0
	s, err := dtf.BeginFileSession(mpi.CommFromPtr(*commp), p, writer)
	if err != nil {
		return status(err)
	}
	nextTok++
	opening[nextTok] = s
	*token = C.int(nextTok)
	return routeFile
}

//export couplet_bind_session
func couplet_bind_session(token, ncid, ok C.int) {
	mu.Lock()
	defer mu.Unlock()
	s := opening[int(token)]
	delete(opening, int(token))
	if ok != 0 && s != nil {
		sessions[int(ncid)] = s
	}
}

//export couplet_end_session
func couplet_end_session(ncid C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	s, ok := sessions[int(ncid)]
	if !ok {
		return 0
	}
	delete(sessions, int(ncid))
	return status(s.End())
}

//export couplet_open_coupled
func couplet_open_coupled(comm unsafe.Pointer, path *C.char, mode, create C.int, ncidp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	c, p := mpi.CommFromPtr(comm), canonical(C.GoString(path))
	var f *pnetcdf.File
	var err error
	if create != 0 {
		f, err = pnetcdf.Create(c, p, int(mode))
	} else {
		f, err = pnetcdf.Open(c, p, int(mode))
	}
	if err != nil {
		return status(err)
	}
	id := nextID
	nextID++
	files[id] = f
	if ncidp != nil {
		*ncidp = C.int(id)
	}
	return 0
}

// Calls of couplet_call, in capi.h's SIMPLE order.
const (
	callClose = iota
	callEndDef
	callRedef
	callSync
	callBeginIndep
	callEndIndep
	callBufferDetach
)

//export couplet_call
func couplet_call(ncid, what C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	switch what {
	case callClose:
		delete(files, int(ncid))
		defer dropDerived(int(ncid))
		err = f.Close()
	case callEndDef:
		err = f.EndDef()
	case callRedef:
		err = f.Redef()
	case callSync:
		err = f.Sync()
	case callBeginIndep:
		err = f.BeginIndepData()
	case callEndIndep:
		err = f.EndIndepData()
	case callBufferDetach:
		err = f.BufferDetach()
	default:
		err = nc.EINVAL
	}
	return status(err)
}
