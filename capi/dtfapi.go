package main

/*
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/dtf"
	dtfcfg "github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/nc"
)

// User-measured I/O time (dtf_time_start/end), reported at finalisation
// when DTF_PRINT_STATS is set.
var (
	userStart time.Time
	userIO    time.Duration
)

//export couplet_dtf_init
func couplet_dtf_init(path, comp *C.char) C.int {
	mu.Lock()
	defer mu.Unlock()
	p, c := "", ""
	if path != nil {
		p = C.GoString(path)
	}
	if comp != nil {
		c = C.GoString(comp)
	}
	initDone = true
	if dtf.Active() {
		// DTF_INI_FILE started the runtime at MPI_Init already (the
		// world split); the program's own dtf_init joins it.
		if c != "" && c != dtf.ComponentName() {
			return status(fmt.Errorf("dtf_init: component %q, but this rank runs component %q", c, dtf.ComponentName()))
		}
		return 0
	}
	if err := dtf.Init(p, c); err != nil {
		return status(err)
	}
	return status(startSplitAfterInit())
}

//export couplet_dtf_finalize
func couplet_dtf_finalize() C.int {
	mu.Lock()
	defer mu.Unlock()
	return status(finalize())
}

// finalize ends the runtime and reports the user-measured I/O time.
func finalize() error {
	if os.Getenv("DTF_PRINT_STATS") != "" && os.Getenv("DTF_PRINT_STATS") != "0" {
		fmt.Fprintf(os.Stderr, "couplet: %s: user-measured I/O time %v\n", dtf.ComponentName(), userIO)
	}
	return dtf.Finalize()
}

//export couplet_dtf_transfer
func couplet_dtf_transfer(path *C.char, ncid C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	p, err := transferPath("dtf_transfer", path, ncid)
	if p == "" || err != nil {
		return status(err)
	}
	return status(dtf.Transfer(p))
}

// couplet_dtf_multiple serves dtf_transfer_multiple (complete 0, the
// writer) and dtf_complete_multiple (complete 1, a reader). They return
// nothing in DTF's API, so errors go to stderr.
//
//export couplet_dtf_multiple
func couplet_dtf_multiple(path *C.char, ncid C.int, complete C.int) {
	mu.Lock()
	defer mu.Unlock()
	call, run := "dtf_transfer_multiple", dtf.TransferMultiple
	if complete != 0 {
		call, run = "dtf_complete_multiple", dtf.CompleteMultiple
	}
	p, err := transferPath(call, path, ncid)
	if p != "" && err == nil {
		err = run(p)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, message(fmt.Errorf("%s: %w", call, err)))
	}
}

// transferPath names the file of a DTF transfer call: path, or the file of
// ncid when path is NULL or empty. It returns "" for a file that is not
// coupled in transfer mode: as in DTF, such a transfer does nothing (in file
// mode the file system carries the data).
func transferPath(call string, path *C.char, ncid C.int) (string, error) {
	p := ""
	if path != nil && C.GoString(path) != "" {
		p = canonical(C.GoString(path)) // the name the file was opened by
	} else {
		f, err := file(ncid)
		if err != nil {
			return "", nc.Errorf(nc.EBADID, "%s: no file name and ncid %d is not a coupled file", call, int(ncid))
		}
		p = f.Path()
	}
	if ok, mode := dtf.Claims(p); !ok || mode == dtfcfg.ModeFile {
		return "", nil
	}
	return p, nil
}

//export couplet_dtf_transfer_all
func couplet_dtf_transfer_all() C.int {
	mu.Lock()
	defer mu.Unlock()
	return status(dtf.TransferAll())
}

//export couplet_dtf_time
func couplet_dtf_time(start C.int) {
	mu.Lock()
	defer mu.Unlock()
	if start != 0 {
		userStart = time.Now()
	} else if !userStart.IsZero() {
		userIO += time.Since(userStart)
		userStart = time.Time{}
	}
}

//export couplet_at_finalize
func couplet_at_finalize() {
	mu.Lock()
	defer mu.Unlock()
	if !dtf.Active() {
		return
	}
	if err := finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "couplet: finalising the coupling runtime in MPI_Finalize: %v\n", err)
	}
}
