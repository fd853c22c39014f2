package ucx

import (
	"errors"
	"testing"
	"time"
)

// TestClosedPeer sends to a worker that no longer exists: the send must
// fail, or at worst time out, within the deadline instead of hanging.
func TestClosedPeer(t *testing.T) {
	for _, tls := range transports {
		t.Run(tls, func(t *testing.T) {
			a := newNode(t, tls)
			c, err := NewContext(&Options{Config: map[string]string{"TLS": tls}})
			if err != nil {
				t.Fatal(err)
			}
			w, err := c.NewWorker(ThreadSerialized)
			if err != nil {
				t.Fatal(err)
			}
			addr, err := w.Address()
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			c.Close()

			start := time.Now()
			ep, err := a.w.Connect(addr)
			if err != nil {
				t.Logf("connect failed at once: %v", err)
				return
			}
			defer ep.Close(time.Second)
			s, err := ep.SendTag(make([]byte, 1<<20), 1)
			if err == nil {
				err = s.Wait(5 * time.Second)
			}
			if err == nil {
				t.Fatal("send to a closed worker succeeded")
			}
			t.Logf("after %v: %v (endpoint error: %v)", time.Since(start).Round(time.Millisecond), err, ep.Err())
			if tls == "tcp" && errors.Is(err, ErrTimeout) {
				t.Errorf("over tcp with peer error handling the failure should be reported, not a timeout")
			}
			if _, err := ep.SendTag([]byte{1}, 1); err == nil && ep.Err() != nil {
				t.Error("send on a failed endpoint was accepted")
			}
		})
	}
}

// TestWaitTimeout checks that a wait on a message that never comes ends
// with ErrTimeout close to its deadline.
func TestWaitTimeout(t *testing.T) {
	for _, m := range sleepModes {
		t.Run(m.name, func(t *testing.T) {
			b := newNode(t, "sm")
			b.w.SleepInThread(m.inThread)
			r, err := b.w.RecvTag(make([]byte, 8), 99, TagMaskAll)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = r.Wait(200 * time.Millisecond)
			if el := time.Since(start); !errors.Is(err, ErrTimeout) || el < 200*time.Millisecond || el > 2*time.Second {
				t.Fatalf("wait returned %v after %v, want ErrTimeout after about 200ms", err, el)
			}
			if err := r.Cancel(testTimeout); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestClosedWorker checks that using a closed worker fails and that
// pending requests end with ErrClosed.
func TestClosedWorker(t *testing.T) {
	c, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w, err := c.NewWorker(ThreadSerialized)
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.RecvTag(make([]byte, 8), 1, TagMaskAll)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if !r.Done() || !errors.Is(r.Err(), ErrClosed) {
		t.Fatalf("pending receive after Close: done %v err %v", r.Done(), r.Err())
	}
	if _, err := w.Address(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Address after Close: %v", err)
	}
	if err := w.WaitTimeout(time.Second, func() bool { return false }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Wait after Close: %v", err)
	}
}
