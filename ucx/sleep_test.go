package ucx

import (
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime is the CPU time (user + system) the process has used so far.
func cpuTime(t *testing.T) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sleepModes are the two ways a wait sleeps: in Go's network poller, or in the
// calling thread (Worker.SleepInThread).
var sleepModes = []struct {
	name     string
	inThread bool
}{{"poller", false}, {"thread", true}}

// TestWaitSleeps checks that a receive waiting about a second for its
// message sleeps in the kernel, either way: the process then uses little CPU.
func TestWaitSleeps(t *testing.T) {
	for _, tls := range transports {
		for _, m := range sleepModes {
			t.Run(tls+"/"+m.name, func(t *testing.T) { testWaitSleeps(t, tls, m.inThread) })
		}
	}
}

func testWaitSleeps(t *testing.T, tls string, inThread bool) {
	a, b := newNode(t, tls), newNode(t, tls)
	b.w.SleepInThread(inThread)
	ep := connect(t, a, b)
	// Warm the connection up so the wait measures only sleeping.
	warm, err := b.w.RecvTag(make([]byte, 1), 1, TagMaskAll)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ep.SendTag([]byte{1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	go s.Wait(testTimeout)
	if err := warm.Wait(testTimeout); err != nil {
		t.Fatal(err)
	}

	buf := make([]byte, 64)
	r, err := b.w.RecvTag(buf, 2, TagMaskAll)
	if err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		s, err := ep.SendTag([]byte("late"), 2)
		if err == nil {
			err = s.Wait(testTimeout)
		}
		sent <- err
	}()
	cpu0, wall0 := cpuTime(t), time.Now()
	if err := r.Wait(testTimeout); err != nil {
		t.Fatal(err)
	}
	cpu, wall := cpuTime(t)-cpu0, time.Since(wall0)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if n, _ := r.Info(); string(buf[:n]) != "late" {
		t.Fatalf("received %q", buf[:n])
	}
	t.Logf("waited %v using %v of CPU", wall.Round(time.Millisecond), cpu)
	if wall < 900*time.Millisecond {
		t.Fatalf("message arrived after %v, before it was sent", wall)
	}
	// A spinning waiter would use about the wall time.
	if cpu > 150*time.Millisecond {
		t.Fatalf("waiting %v used %v of CPU: the waiter is not sleeping", wall, cpu)
	}
}

// TestWaitParksGoroutine checks that a waiter with nothing to do is parked in Go's
// network poller ("IO wait"), not blocked in a system call holding one of the process's
// GOMAXPROCS ("syscall"), unless the worker sleeps in the thread (then "syscall" is
// right), and that several waiters on one worker sleep at once, each woken by Signal.
func TestWaitParksGoroutine(t *testing.T) {
	for _, m := range sleepModes {
		want := map[bool]string{false: "IO wait", true: "syscall"}[m.inThread]
		t.Run(m.name, func(t *testing.T) { testWaitParks(t, m.inThread, want) })
	}
}

func testWaitParks(t *testing.T, inThread bool, want string) {
	n := newNode(t, "tcp")
	n.w.SleepInThread(inThread)
	var stop atomic.Bool
	const waiters = 3
	done := make(chan error, waiters)
	for range waiters {
		go func() { done <- n.w.WaitTimeout(testTimeout, stop.Load) }()
	}
	// The waiters' states, from the stacks of every goroutine sleeping in Worker.sleep.
	states := func() []string {
		buf := make([]byte, 1<<20)
		var out []string
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "ucx.(*Worker).sleep") {
				head, _, _ := strings.Cut(g, "\n")
				_, st, _ := strings.Cut(head, "[")
				st, _, _ = strings.Cut(st, "]")
				st, _, _ = strings.Cut(st, ",") // "IO wait, 2 minutes"
				out = append(out, st)
			}
		}
		return out
	}
	// Settled: every waiter inside sleep and none of them between two states.
	settled := func(sts []string) bool {
		return len(sts) == waiters && !slices.Contains(sts, "runnable") && !slices.Contains(sts, "running")
	}
	deadline := time.Now().Add(testTimeout)
	var got []string
	for got = states(); !settled(got) && time.Now().Before(deadline); got = states() {
		runtime.Gosched()
	}
	for _, st := range got {
		if st != want {
			t.Errorf("a waiter sleeps in state %q, want %q", st, want)
		}
	}
	if len(got) != waiters {
		t.Errorf("%d waiters asleep at once, want %d", len(got), waiters)
	}
	stop.Store(true)
	n.w.Signal()
	for range waiters {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestWaitNoticesUnsignaled checks that a condition set without any UCX event
// or Signal, as a completion whose wake-up never comes looks to a waiter, is
// noticed long before maxSleep: a wait's sleeps start at firstSleep. The
// condition is set 2 ms into the wait; the least of several tries is compared,
// so that a late wake-up on a busy machine does not decide it, and a first
// sleep of maxSleep never comes under half of it.
func TestWaitNoticesUnsignaled(t *testing.T) {
	for _, m := range sleepModes {
		t.Run(m.name, func(t *testing.T) {
			n := newNode(t, "tcp")
			n.w.SleepInThread(m.inThread)
			least := time.Duration(1<<63 - 1)
			for range 5 {
				var set atomic.Bool
				var at atomic.Int64
				go func() {
					time.Sleep(2 * time.Millisecond)
					at.Store(time.Now().UnixNano())
					set.Store(true)
				}()
				if err := n.w.WaitTimeout(testTimeout, set.Load); err != nil {
					t.Fatal(err)
				}
				least = min(least, time.Since(time.Unix(0, at.Load())))
			}
			if least >= maxSleep/2 {
				t.Errorf("the wait noticed its condition %v after it was set at best (5 tries), want under %v", least, maxSleep/2)
			}
		})
	}
}
