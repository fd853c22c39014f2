package ucx

import (
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

// TestWaitSleeps checks that a receive waiting about a second for its
// message sleeps in the kernel: the process then uses little CPU.
func TestWaitSleeps(t *testing.T) {
	for _, tls := range transports {
		t.Run(tls, func(t *testing.T) {
			a, b := newNode(t, tls), newNode(t, tls)
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
		})
	}
}
