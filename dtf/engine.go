package dtf

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/dtf/protocol"
	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/internal/sysmon"
	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/transport"
)

// engine is the per-process coupling runtime: the component, its peers, the
// coupled files and the message progress. One mutex serialises it, so the
// optional background progress goroutine and application calls never overlap.
type engine struct {
	mu  sync.Mutex
	cfg *config.Config

	tr        transport.Transport // how control messages and blocks move between components
	kv        kvs.KV              // the rendezvous store, when the transport needs one
	comm      mpi.Comm            // this component's communicator (Comm)
	comp      int                 // this component's index in comp_name order
	compRanks [][]int             // transport ranks of each component's ranks, in component-rank order
	ownsMPI   bool                // Init initialised MPI, so Finalize finalises it

	mail  []*envelope    // control messages not yet taken by a waiter
	sends []*pendingSend // control sends in flight
	held  []heldMsg      // control messages to send at the end of this poll, or to this rank (receive)
	// holding is set while a poll hands messages to the roles: what they
	// send is held until it ends.
	holding bool
	files   map[string]*File  // open coupled files by path
	mt      *protocol.Matcher // the matcher role of every file session
	// matchTime is the time the matcher took per session, until its epoch ends.
	matchTime map[sessKey]time.Duration
	hist      map[string]*pathHistory
	// explicit marks [FILE] sections whose files have seen Transfer: their users
	// follow the explicit-epoch contract, so buffer_data=0 may skip copies.
	explicit map[int]bool
	stores

	tags       tagLayout // where data tags sit under the transport's bound
	nextFileID int       // the file slot to try first for the next written file
	inFlight   int       // data messages posted and not yet complete, over all files
	polled     time.Time // when poll last ran
	stats      *stats.Writer
	totals     rankTotals // this rank's statistics, for DTF_PRINT_STATS
	opened     []string   // paths the program opened, coupled or not (verbose finalize)
	stop       chan struct{}
	bgDone     chan struct{}
	// watch, when the transport offers one, looks for control messages on
	// a thread outside the Go scheduler and wakes the background goroutine
	// only when one waits (backgroundWatch).
	watch transport.Watch
	// waiting counts application calls inside waitFor, which progress the
	// engine themselves; the background goroutine parks on waited until
	// the last of them returns rather than waking on a timer meanwhile.
	waiting atomic.Int32
	waited  chan struct{}
	// tryIO replaces mpi.TryLockIO in enterIO when set (a test watches
	// the attempts).
	tryIO func() bool
}

var (
	engMu sync.Mutex
	eng   *engine
)

// Init joins the coupling runtime: it reads the config (DTF_INI_FILE overrides
// configPath), finds this process's component (by name, else
// COUPLET_COMPONENT or MPMD_COMP, else MPI_APPNUM) and connects to the other
// components through the configured transport: MPI_COMM_WORLD in one mpirun,
// or UCX with a rendezvous in the KVS for separate launches. It is
// collective over MPI_COMM_WORLD. If MPI is not initialised yet, Init
// initialises it asking for MPI_THREAD_MULTIPLE, and Finalize finalises it.
func Init(configPath, component string) error {
	engMu.Lock()
	defer engMu.Unlock()
	if eng != nil {
		return errors.New("dtf: Init called twice")
	}
	cfg, err := config.LoadConfigEnv(configPath)
	if err != nil {
		return err
	}
	e := &engine{cfg: cfg, files: map[string]*File{}, matchTime: map[sessKey]time.Duration{}, hist: map[string]*pathHistory{}, explicit: map[int]bool{}, stores: newStores()}
	if !mpi.Initialized() {
		if _, err := mpi.InitThread(mpi.ThreadMultiple); err != nil {
			return err
		}
		e.ownsMPI = true
	}
	if e.comp, err = findComponent(cfg, component); err != nil {
		return err
	}
	if err := e.joinWorld(); err != nil {
		return err
	}
	if e.tags, err = newTagLayout(e.tr.TagUB()); err != nil {
		return err
	}
	e.mt = e.newMatcher()
	if cfg.StatsPath != "" {
		if e.stats, err = stats.Open(cfg.StatsPath); err != nil {
			return err
		}
	}
	e.reportStart(lowerMonitor())
	if cfg.ProgressThread && mpi.QueryThread() == mpi.ThreadMultiple {
		e.startBackground()
	}
	eng = e
	return nil
}

// lowerMonitor lowers the Go runtime's monitor thread (package sysmon says
// why) unless sysmon.Env is 0, and says what it did for the verbose report.
func lowerMonitor() string {
	if os.Getenv(sysmon.Env) == "0" {
		return "left alone (" + sysmon.Env + "=0)"
	}
	tid, err := sysmon.Lower()
	if err != nil {
		return "left alone: " + err.Error()
	}
	return fmt.Sprintf("thread %d at nice %d", tid, sysmon.Nice)
}

// findComponent resolves this process's component index: the name given to
// Init, else COUPLET_COMPONENT or MPMD_COMP, else MPI_APPNUM (one mpirun
// only: separately launched jobs each have MPI_APPNUM 0).
func findComponent(cfg *config.Config, name string) (int, error) {
	for _, env := range []string{"COUPLET_COMPONENT", "MPMD_COMP"} {
		if name == "" {
			name = os.Getenv(env)
		}
	}
	if name != "" {
		if i := cfg.CompIndex(name); i >= 0 {
			return i, nil
		}
		return 0, fmt.Errorf("dtf: component %q is not declared in %s (comp_name: %v)", name, cfg.Path, cfg.CompNames)
	}
	if cfg.Launched() == config.LaunchSeparate {
		return 0, errors.New("dtf: separately launched components must be named: pass a name to Init or set COUPLET_COMPONENT")
	}
	n, set, err := mpi.AppNum()
	if err != nil {
		return 0, err
	}
	if !set {
		return 0, errors.New("dtf: cannot tell this process's component: pass a name to Init, set COUPLET_COMPONENT, or launch with mpirun -np A prog1 : -np B prog2")
	}
	if n < 0 || n >= cfg.NComp {
		return 0, fmt.Errorf("dtf: MPI_APPNUM %d but %s declares %d components", n, cfg.Path, cfg.NComp)
	}
	return n, nil
}

// Finalize leaves the runtime. Files still open are an error. It is collective
// over MPI_COMM_WORLD.
func Finalize() error {
	engMu.Lock()
	defer engMu.Unlock()
	e := eng
	if e == nil {
		return errors.New("dtf: Finalize without Init")
	}
	if e.watch != nil {
		e.watch.Close() // ends backgroundWatch's Wait
	}
	if e.stop != nil {
		close(e.stop)
	}
	if e.bgDone != nil {
		<-e.bgDone
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reportFinish()
	var errs []error
	for p := range e.files {
		errs = append(errs, fmt.Errorf("dtf: file %s still open at Finalize", p))
	}
	errs = append(errs, e.waitSends(), e.stats.Close())
	if e.kv != nil {
		defer e.kv.Close()
	}
	eng = nil
	// A dead peer never reaches the transport's final barrier; then the
	// remaining collective teardown would hang too, so it is skipped and
	// the error returned.
	if err := e.tr.Close(); err != nil {
		return errors.Join(append(errs, err)...)
	}
	errs = append(errs, e.comm.Free())
	if e.ownsMPI {
		errs = append(errs, mpi.Finalize())
	}
	return errors.Join(errs...)
}

// Active reports whether Init has been called and Finalize has not.
func Active() bool {
	engMu.Lock()
	defer engMu.Unlock()
	return eng != nil
}

// Comm returns this component's communicator; an MPMD application uses it in
// place of MPI_COMM_WORLD. Before Init it returns MPI_COMM_WORLD.
func Comm() mpi.Comm {
	engMu.Lock()
	defer engMu.Unlock()
	if eng == nil {
		return mpi.World()
	}
	return eng.comm
}

// ComponentName returns this process's component name ("" before Init).
func ComponentName() string {
	engMu.Lock()
	defer engMu.Unlock()
	if eng == nil {
		return ""
	}
	return eng.cfg.CompNames[eng.comp]
}

// current returns the running engine or an error saying Init is missing.
func current() (*engine, error) {
	engMu.Lock()
	defer engMu.Unlock()
	if eng == nil {
		return nil, errors.New("dtf: not initialised (call dtf.Init)")
	}
	return eng, nil
}

// background serves incoming messages while the application computes, over
// a transport that cannot watch for them (see backgroundWatch). It runs
// only when MPI provides THREAD_MULTIPLE, on a locked OS thread (MPI and UCX
// see one thread, not whichever the Go scheduler picks), and sleeps between
// polls, backing off while nothing arrives. Polling much more often (every
// 0.1-1 ms) answered matcher rounds sooner, but on 8 ranks over 2 cores
// the wake-ups slowed the letkf cycle by a quarter. While an application
// call waits in waitFor, which polls and drives by itself, the goroutine
// does not wake at all: it parks until that call returns. Waking on its
// timer meanwhile only to find the engine held cost each rank thread
// hand-offs in the Go scheduler and the kernel every millisecond, CPU
// that the data in flight needed (6 ranks share 2 cores).
func (e *engine) background() {
	runtime.LockOSThread()
	defer close(e.bgDone)
	idle := bgMinIdle
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for {
		if e.waiting.Load() > 0 {
			select {
			case <-e.stop:
				return
			case <-e.waited:
			}
			idle = bgMinIdle // the call may have left work behind
			continue
		}
		timer.Reset(idle)
		select {
		case <-e.stop:
			return
		case <-e.waited:
			continue // a wait ended before this goroutine parked: look again
		case <-timer.C:
		}
		n, polled := e.pollIfFree()
		if !polled {
			continue
		}
		if n > 0 {
			idle = bgMinIdle
		} else {
			idle = min(2*idle, bgMaxIdle)
		}
	}
}

// startBackground starts the background goroutine: backgroundWatch when
// the transport can watch for control messages itself, else background.
func (e *engine) startBackground() {
	e.bgDone = make(chan struct{})
	if w, ok := e.tr.(transport.Watcher); ok {
		watch, err := w.Watch(tagCtl, bgMinIdle, bgMaxIdle)
		if err == nil {
			e.watch = watch
			go e.backgroundWatch()
			return
		}
	}
	e.stop, e.waited = make(chan struct{}), make(chan struct{}, 1)
	go e.background()
}

// backgroundWatch serves incoming messages while the application computes,
// as background does, but it sleeps in the Go scheduler until the
// transport's watch saw a message waiting: the looks in between cost no Go
// timer, no goroutine hand-off and no wake-up of a locked thread. On 6
// ranks over 2 cores (case 1 of couplet bench, 64 MiB, interleaved
// launches), raw MPI rounds in the same processes took 8.3-9.0 ms with
// background's timer polls, 7.8-8.2 with this, 7.7-7.8 with neither, and
// couplet's own rounds 5-14% less with this than with background. While an
// application call waits in waitFor the watch is paused (enterWait). The
// goroutine keeps no OS thread of its own: a locked one would cost a
// hand-off between threads at every wake, and MPI provides
// THREAD_MULTIPLE.
func (e *engine) backgroundWatch() {
	defer close(e.bgDone)
	for e.watch.Wait() == nil {
		// An application call that waits in the engine progresses itself;
		// the watch looks again soon after Rearm (or the wait's end), and
		// fires again if the message is still there.
		if e.waiting.Load() == 0 {
			e.pollIfFree()
		}
		e.watch.Rearm()
	}
}

// pollIfFree polls for the background goroutines, unless the engine or MPI
// is busy, and reports how many messages it handled and whether it polled.
// An application call that holds the engine progresses itself (waitFor
// polls and drives): the poll is skipped rather than queued on the lock.
// Queued, it would soon put the mutex in starvation mode, which hands the
// lock to the background at each of the waiter's brief releases and stalls
// the waiter, and its data in flight, until that thread gets a core. Nor
// does it enter MPI while the application is inside MPI-IO (a libpnetcdf
// call on a real file, a C or Fortran MPI_File_* call): Open MPI's OMPIO is
// not thread safe (mpi.LockIO).
func (e *engine) pollIfFree() (n int, polled bool) {
	if !e.mu.TryLock() {
		return 0, false
	}
	defer e.mu.Unlock()
	if !e.enterIO() {
		return 0, false
	}
	n, _ = e.poll(false)
	mpi.UnlockIO()
	return n, true
}

// enterIO takes the MPI-IO exclusion (mpi.TryLockIO) before a look into MPI
// that only progresses it; false means another thread is inside MPI-IO, and
// the caller must stay out of MPI for now. A true is ended with
// mpi.UnlockIO.
func (e *engine) enterIO() bool {
	if e.tryIO != nil {
		return e.tryIO()
	}
	return mpi.TryLockIO()
}

// enterWait and leaveWait bracket an application call's waitFor, so that
// the background goroutine stays parked meanwhile (see background), or its
// watch paused (backgroundWatch). Both run with e.mu held.
func (e *engine) enterWait() {
	if e.waiting.Add(1) == 1 && e.watch != nil {
		e.watch.Pause()
	}
}

func (e *engine) leaveWait() {
	if e.waiting.Add(-1) != 0 {
		return
	}
	if e.watch != nil {
		e.watch.Resume()
	}
	if e.waited != nil {
		select {
		case e.waited <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// waitFor runs the progress loop until done reports true, failing after the
// configured timeout with an error that says what was awaited. Called with
// e.mu held; it releases the lock between polls so the background goroutine
// can serve. Each poll and call of done happens under the MPI-IO exclusion
// (enterIO): while another thread of the application is inside MPI-IO, the
// wait sleeps instead of entering MPI.
//
// How it waits depends on what is outstanding. While data messages are in
// flight, Open MPI advances them only inside MPI calls (fragment by fragment),
// so it polls continuously but yields the CPU between polls, as Open MPI does
// itself when ranks outnumber cores. Otherwise, for spinFor after the wait
// began or a message came, it polls and yields between polls: the peers'
// answer is usually that close (a matcher hears from every rank at once,
// and a writer's schedule follows its request by a round trip), and a
// yield with nothing else runnable costs a system call, where a sleep
// costs a timer wake and two context switches on a core that other ranks
// want. After that it sleeps between polls, from minSleep after a message
// arrived, doubling up to maxSleep, and uses no CPU however long the peers
// take. Not yielding then matters on a crowded node: the kernel's scheduler
// (EEVDF) pushes a yielding process behind whatever computes, for a
// millisecond or more per yield, while a process that slept runs soon after
// it wakes. The sleep is the kernel's, because Go's timers round a short
// sleep of an idle process up to a millisecond.
func (e *engine) waitFor(what func() string, done func() (bool, error)) error {
	e.enterWait()
	defer e.leaveWait()
	deadline := time.Now().Add(e.cfg.Timeout)
	sleep := minSleep
	spins := 0
	heard := time.Now() // the wait's start, then the last message's arrival
	for {
		n, ok := 0, false
		entered := e.enterIO()
		if entered {
			var err error
			if n, err = e.poll(true); err == nil {
				ok, err = done()
			}
			mpi.UnlockIO()
			if err != nil || ok {
				return err
			}
		}
		if time.Now().After(deadline) {
			return nc.Errorf(nc.ETIMEDOUT, "dtf: timeout after %v waiting for %s", e.cfg.Timeout, what())
		}
		if n > 0 {
			// More may be waiting (a matcher hears from every rank at
			// once): look again at once. A sleep here, however short,
			// costs the kernel's timer slack (50 us) per message.
			sleep, heard = minSleep, time.Now()
			continue
		}
		e.mu.Unlock()
		switch {
		case e.inFlight > 0 && entered:
			// Progress costs a few microseconds a round and a fragment is
			// 32 KiB: yield (and let the background goroutine in) only every
			// few rounds, not each time.
			if spins++; spins%yieldEvery == 0 {
				syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
			}
		case time.Since(heard) < spinFor:
			syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		default:
			ts := syscall.NsecToTimespec(sleep.Nanoseconds())
			syscall.Nanosleep(&ts, nil)
			sleep = min(2*sleep, maxSleep)
		}
		e.mu.Lock()
	}
}

// Backoff bounds for waits on peers' control messages, how many polls go
// between yields of the CPU, how long one round drives data messages, and
// the background goroutine's sleeps.
const (
	yieldEvery = 8
	// spinFor is how long a wait for control messages yields between polls
	// before it sleeps (see waitFor). Measured in case 1 of couplet bench
	// (6 ranks on 2 cores, interleaved launches, machine's fast state):
	// couplet / raw MPI at 64 MiB 0.958-0.982 against 0.946-0.954 sleeping
	// from the start, and at 4 MiB 0.695 against 0.627, with fewer context
	// switches and less CPU per round.
	spinFor  = 300 * time.Microsecond
	minSleep = 2 * time.Microsecond
	maxSleep = 200 * time.Microsecond
	// driveBudget is one C loop of MPI_Testall. It can be long because the
	// loop ends as soon as a control message arrives; returning to Go every
	// 100 us instead cost a fifth of the exchange bandwidth, and every 5 ms
	// still cost each writer of case 1 of couplet bench about 4 ms of CPU per
	// 256 MiB round (26 returns, each with its polls and tests, on a node
	// whose cores the readers' copies need): couplet / raw MPI went from
	// 0.86-0.92 to 0.93-0.96 in interleaved launches with 20 ms.
	driveBudget = 20 * time.Millisecond
	// callPoll spaces the polls that API calls make on the way in: a loop
	// of hundreds of puts need not progress MPI (which yields the CPU when
	// idle on a crowded node) once per call.
	callPoll  = time.Millisecond
	bgMinIdle = time.Millisecond
	bgMaxIdle = 20 * time.Millisecond
)
