package main

/*
#include "worldsplit.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/dtf"
	dtfcfg "github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
)

//go:generate go run ./gen/mpiwrap -o zworldsplit.c

// The start-up handshake runs point to point on the real world, with a tag
// every MPI allows (the standard guarantees tags up to 32767).
const (
	helloTag   = 32765
	helloMagic = 0x63706c74 // "cplt": the sender is a couplet rank
)

// splitOff reports whether COUPLET_SPLIT_WORLD turns the world split off
// (0, false, off or no); the runtime then starts lazily as without it.
func splitOff() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("COUPLET_SPLIT_WORLD"))) {
	case "0", "false", "off", "no":
		return true
	}
	return false
}

// couplet_split_init runs right after the program's MPI_Init. With a config
// (DTF_INI_FILE) it checks that every rank of the world runs couplet, and when
// the world holds two or more components it starts the coupling runtime and
// makes MPI_COMM_WORLD mean this rank's component. Any failure here is fatal:
// the job is aborted with the reason, since the program cannot go on with a
// world that means something else than it should.
//
//export couplet_split_init
func couplet_split_init() {
	mu.Lock()
	defer mu.Unlock()
	if os.Getenv("DTF_INI_FILE") == "" || splitOff() {
		return
	}
	if err := splitWorld(); err != nil {
		fmt.Fprintln(os.Stderr, message(err))
		mpi.Abort(mpi.World(), 1)
	}
}

// splitWorld is couplet_split_init's work.
func splitWorld() error {
	cfg, err := dtfcfg.LoadConfigEnv("")
	if err != nil {
		return err
	}
	app, _, err := mpi.AppNum()
	if err != nil {
		return err
	}
	comp, err := ownComponent(cfg, app)
	if err != nil {
		return err
	}
	comps, err := handshake(cfg.Timeout, app, comp)
	if err != nil {
		return err
	}
	if cfg.Transport != dtfcfg.TransportMPI || distinct(comps) < 2 {
		// A program alone, or one launch of separately launched
		// components: its world is its component already. The runtime
		// starts at its first coupled create or open.
		return nil
	}
	initDone = true
	if err := dtf.Init("", ""); err != nil {
		initErr = err
		return err
	}
	c, err := dtf.Comm().Dup()
	if err != nil {
		return err
	}
	C.couplet_split_start(C.MPI_Comm(c.Ptr()))
	return nil
}

// startSplitAfterInit turns the split on after a dtf_init that started the
// runtime (a DTF program that names its config in the call, not in
// DTF_INI_FILE), when the world holds more than this component.
func startSplitAfterInit() error {
	if splitOff() || C.couplet_split_on != 0 {
		return nil
	}
	c := dtf.Comm()
	if c.Size() == mpi.World().Size() {
		return nil
	}
	d, err := c.Dup()
	if err != nil {
		return err
	}
	C.couplet_split_start(C.MPI_Comm(d.Ptr()))
	return nil
}

// ownComponent finds this rank's component as dtf.Init will: by name from
// COUPLET_COMPONENT or MPMD_COMP, else by MPI_APPNUM in comp_name order.
func ownComponent(cfg *dtfcfg.Config, app int) (int, error) {
	for _, env := range []string{"COUPLET_COMPONENT", "MPMD_COMP"} {
		if name := os.Getenv(env); name != "" {
			if i := cfg.CompIndex(name); i >= 0 {
				return i, nil
			}
			return 0, fmt.Errorf("%s=%s is not a component of %s (comp_name: %s)", env, name, cfg.Path, strings.Join(cfg.CompNames, ", "))
		}
	}
	if app >= cfg.NComp {
		return 0, fmt.Errorf("this is program %d of the mpirun (MPI_APPNUM %d) but %s declares %d components (comp_name: %s)",
			app+1, app, cfg.Path, cfg.NComp, strings.Join(cfg.CompNames, ", "))
	}
	return app, nil
}

// distinct counts the different values of xs.
func distinct(xs []int32) int {
	seen := map[int32]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

// handshake checks, within timeout, that every rank of the world runs
// couplet with a config, and returns each world rank's component. World
// rank 0 collects a hello from every other rank and answers with the list;
// a rank that never says hello did not load couplet (or has no
// DTF_INI_FILE), and the error names its program. Only point-to-point
// messages are used, so ranks without couplet, which may be in a collective
// of their own, cannot make it hang.
func handshake(timeout time.Duration, app, comp int) ([]int32, error) {
	w := mpi.World()
	n, me := w.Size(), w.Rank()
	comps := make([]int32, n)
	comps[me] = int32(comp)
	if n == 1 {
		return comps, nil
	}
	deadline := time.Now().Add(timeout)
	if me != 0 {
		hello := []int32{helloMagic, int32(app), int32(comp)}
		sq, err := mpi.Isend(w, hello, 0, helloTag)
		if err != nil {
			return nil, err
		}
		rq, err := mpi.Irecv(w, comps, 0, helloTag)
		if err != nil {
			return nil, err
		}
		// Rank 0 answers within its own timeout; a little more here
		// lets its error, which names every missing rank, come first.
		if missing, err := untilDone([]*mpi.Request{sq, rq}, deadline.Add(2*time.Second)); err != nil || len(missing) > 0 {
			if err != nil {
				return nil, err
			}
			return nil, missingError([]int{0}, n, timeout)
		}
		return comps, nil
	}
	hellos := make([][]int32, n)
	reqs := make([]*mpi.Request, n-1)
	for r := 1; r < n; r++ {
		hellos[r] = make([]int32, 3)
		q, err := mpi.Irecv(w, hellos[r], r, helloTag)
		if err != nil {
			return nil, err
		}
		reqs[r-1] = q
	}
	missing, err := untilDone(reqs, deadline)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		ranks := make([]int, len(missing))
		for i, m := range missing {
			ranks[i] = m + 1
		}
		return nil, missingError(ranks, n, timeout)
	}
	for r := 1; r < n; r++ {
		if hellos[r][0] != helloMagic {
			return nil, fmt.Errorf("world rank %d sent a message that is not couplet's start-up hello (tag %d)", r, helloTag)
		}
		comps[r] = hellos[r][2]
	}
	sends := make([]*mpi.Request, 0, n-1)
	for r := 1; r < n; r++ {
		q, err := mpi.Isend(w, comps, r, helloTag)
		if err != nil {
			return nil, err
		}
		sends = append(sends, q)
	}
	if missing, err := untilDone(sends, time.Now().Add(timeout)); err != nil || len(missing) > 0 {
		return nil, errors.Join(err, fmt.Errorf("the start-up answer to %d ranks was not delivered within %v", len(missing), timeout))
	}
	return comps, nil
}

// untilDone tests reqs until all complete or the deadline passes, sleeping
// between rounds (ranks may outnumber cores), and returns the indexes of
// those still incomplete.
func untilDone(reqs []*mpi.Request, deadline time.Time) ([]int, error) {
	done := make([]bool, len(reqs))
	left := len(reqs)
	nap := 100 * time.Microsecond
	for {
		for i, q := range reqs {
			if done[i] {
				continue
			}
			ok, _, err := q.Test()
			if err != nil {
				return nil, err
			}
			if ok {
				done[i] = true
				left--
			}
		}
		if left == 0 {
			return nil, nil
		}
		if time.Now().After(deadline) {
			var missing []int
			for i := range reqs {
				if !done[i] {
					missing = append(missing, i)
				}
			}
			return missing, nil
		}
		time.Sleep(nap)
		nap = min(2*nap, 10*time.Millisecond)
	}
}

// missingError names the programs of the world ranks that never joined the
// start-up handshake, and the likely cause.
func missingError(ranks []int, n int, timeout time.Duration) error {
	apps := appsOf(ranks, n)
	return fmt.Errorf("%s did not start couplet within %v (the config's timeout): %s most likely runs "+
		"without libcouplet or without DTF_INI_FILE. With Open MPI, -x VAR written before the first program "+
		"applies to that program only: repeat -x LD_PRELOAD=... -x DTF_INI_FILE=... after each ':' "+
		"(or link every program with -lcouplet and export DTF_INI_FILE before mpirun)",
		rankList(ranks, apps), timeout, appList(apps))
}

// appsOf finds the mpirun program (app number) of each world rank from
// OMPI_APP_CTX_NUM_PROCS ("4 2": ranks 0-3 run app 0, ranks 4-5 app 1);
// nil when Open MPI did not set it.
func appsOf(ranks []int, n int) map[int][]int {
	var sizes []int
	for _, f := range strings.Fields(os.Getenv("OMPI_APP_CTX_NUM_PROCS")) {
		k, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		sizes = append(sizes, k)
	}
	apps := map[int][]int{}
	for _, r := range ranks {
		first := 0
		for a, k := range sizes {
			if r < first+k {
				apps[a] = append(apps[a], r)
				break
			}
			first += k
		}
	}
	if len(apps) == 0 {
		return nil
	}
	return apps
}

// rankList says which ranks were missing, by program when known.
func rankList(ranks []int, apps map[int][]int) string {
	if apps == nil {
		return fmt.Sprintf("world ranks %v", ranks)
	}
	var parts []string
	for a := 0; len(parts) < len(apps); a++ {
		if rs, ok := apps[a]; ok {
			parts = append(parts, fmt.Sprintf("world ranks %v of app %d (MPI_APPNUM %d)", rs, a, a))
		}
	}
	return strings.Join(parts, ", ")
}

// appList names the programs, as the user wrote them on the mpirun line.
func appList(apps map[int][]int) string {
	if apps == nil {
		return "that program"
	}
	var parts []string
	for a := 0; len(parts) < len(apps); a++ {
		if _, ok := apps[a]; ok {
			parts = append(parts, fmt.Sprintf("program %d of the mpirun line", a+1))
		}
	}
	return strings.Join(parts, " and ")
}

var strerrors = map[C.int]*C.char{}

// couplet_strerror is ncmpi_strerror for couplet's own codes (nc defines
// their text); the strings live as long as the process.
//
//export couplet_strerror
func couplet_strerror(code C.int) *C.char {
	mu.Lock()
	defer mu.Unlock()
	s, ok := strerrors[code]
	if !ok {
		s = C.CString(nc.Error(code).Error())
		strerrors[code] = s
	}
	return s
}
