// Package sysmon lowers the scheduling priority of the Go runtime's system
// monitor thread, which couples badly with MPI ranks that outnumber cores.
//
// The monitor (sysmon) ticks every 20 us for a millisecond after it last had
// work, takes the P of a cgo call or system call that spans a tick and starts
// another thread to look for work, and is woken again at the call's return. A
// rank that waits on MPI inside a cgo call (mpi.TestallFor) pays each of those
// wake-ups as a context switch on a core that other ranks want, where the
// monitor's wake preempts whichever rank was copying data. At nice 19 the
// monitor still runs, but only when a core has time for it: its ticks stretch
// out, so far fewer calls are taken over, and it no longer preempts. On 6
// ranks over 2 cores (the exchange of case 1 of couplet bench, 64 MiB,
// interleaved launches) that took the futex and nanosleep calls of 100
// couplet rounds from 52800 to 29100, the runtime's hand-offs of a P from
// 6656 to 2587, and couplet / raw MPI from 0.77-0.80 to 0.84-0.87.
//
// What it costs: on a core that ranks keep busy, the monitor's ticks, and so
// the hand-off of a P that a long cgo call holds to another goroutine, wait
// until the scheduler gets round to a nice-19 thread. couplet's background
// goroutine needs such a hand-off only in a Go program whose own goroutine sits
// in a cgo call while a control message waits; a C or Fortran program holds no
// P while it computes, and inside couplet's calls the background is paused.
//
// The runtime does not name its threads. The monitor is the thread that
// sleeps between ticks in nanosleep(2) called from runtime.usleep: Lower reads
// each thread's system call and program counter from /proc/self/task and asks
// the runtime which function the counter lies in.
package sysmon

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Env names the variable that, set to 0, leaves the monitor alone (dtf.Init
// lowers it otherwise).
const Env = "COUPLET_SYSMON_NICE"

// Nice is the nice value Lower gives the monitor: the lowest priority short
// of SCHED_IDLE, under which it waited for an idle core and coupling got
// slower than without any change.
const Nice = 19

// Lower finds the monitor thread and sets its nice value to Nice. It returns
// the thread's id, or an error when no thread is seen sleeping as the monitor
// does (then nothing changed).
func Lower() (int, error) {
	start := time.Now()
	again := func() bool {
		if time.Since(start) >= patience {
			return false
		}
		pause()
		return true
	}
	tid, err := find(unix.Gettid(), threads, syscallOf, funcName, again)
	if err != nil {
		return 0, err
	}
	if err := unix.Setpriority(unix.PRIO_PROCESS, tid, Nice); err != nil {
		return 0, fmt.Errorf("sysmon: set nice %d on thread %d: %w", Nice, tid, err)
	}
	return tid, nil
}

// patience bounds Lower's search. On a node crowded with busy ranks the
// monitor, woken 20 us after each tick, is mostly runnable rather than asleep
// until it has seen 50 ticks without work and starts sleeping longer: a make
// test run with every package at once took it past 50 ms.
const patience = 2 * time.Second

// find returns the thread other than self that is inside nanosleep called
// from runtime.usleep, looking again while again() says to (after a pause):
// the monitor may be running, or waiting for a core, at any one look.
func find(self int, list func() ([]int, error), sys func(tid int) (nr int, pc uint64, ok bool), name func(pc uint64) string, again func() bool) (int, error) {
	tids, err := list()
	if err != nil {
		return 0, err
	}
	for {
		for _, t := range tids {
			if nr, pc, ok := sys(t); ok && t != self && nr == unix.SYS_NANOSLEEP && strings.HasPrefix(name(pc), "runtime.usleep") {
				return t, nil
			}
		}
		if !again() {
			return 0, fmt.Errorf("sysmon: none of the %d threads was seen in the runtime's usleep", len(tids))
		}
	}
}

// pause sleeps a millisecond in a raw system call, which the scheduler does
// not see: the P stays busy, so the monitor keeps ticking (with every P idle
// it would sleep on a futex instead) and, finding nothing to do, sleeps
// longer between ticks.
func pause() {
	ts := unix.NsecToTimespec(int64(time.Millisecond))
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// threads lists the process's thread ids.
func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("sysmon: %w", err)
	}
	var tids []int
	for _, e := range ents {
		if t, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, t)
		}
	}
	return tids, nil
}

// syscallOf reads the system call a thread is blocked in and its program
// counter (the last field of /proc/self/task/TID/syscall); false when the
// thread is running or the file cannot be read.
func syscallOf(tid int) (nr int, pc uint64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", tid))
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0, 0, false // "running", or "-1 sp pc" outside a system call
	}
	nr, err = strconv.Atoi(f[0])
	if err != nil {
		return 0, 0, false
	}
	pc, err = strconv.ParseUint(strings.TrimPrefix(f[len(f)-1], "0x"), 16, 64)
	return nr, pc, err == nil
}

// funcName is the Go function containing pc, "" outside Go code.
func funcName(pc uint64) string {
	if f := runtime.FuncForPC(uintptr(pc)); f != nil {
		return f.Name()
	}
	return ""
}
