package ucx

import (
	"sync"
	"testing"
)

// TestThreadModes exchanges a message between workers of each thread mode.
func TestThreadModes(t *testing.T) {
	for _, mode := range []ThreadMode{ThreadSerialized, ThreadSingle, ThreadMulti} {
		c, err := NewContext(&Options{Config: map[string]string{"TLS": "sm"}})
		if err != nil {
			t.Fatal(err)
		}
		a, err := c.NewWorker(mode)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.NewWorker(mode)
		if err != nil {
			t.Fatal(err)
		}
		addr, err := b.Address()
		if err != nil {
			t.Fatal(err)
		}
		ep, err := a.Connect(addr)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 3)
		r, err := b.RecvTag(buf, 7, TagMaskAll)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ep.SendTag([]byte("abc"), 7)
		if err != nil {
			t.Fatal(err)
		}
		// The send progresses a while the receive progresses b; a is used again
		// (the close) only once the send's goroutine is done with it: a worker
		// closed under a running progress crashed the test binary.
		sent := make(chan error, 1)
		go func() { sent <- s.Wait(testTimeout) }()
		rerr := r.Wait(testTimeout)
		if err := <-sent; err != nil {
			t.Fatalf("mode %d: send: %v", mode, err)
		}
		if rerr != nil || string(buf) != "abc" {
			t.Fatalf("mode %d: received %q, %v", mode, buf, rerr)
		}
		stop := serve(b)
		if err := ep.Close(testTimeout); err != nil {
			t.Errorf("mode %d: close: %v", mode, err)
		}
		stop()
		a.Close()
		b.Close()
		c.Close()
	}
}

func TestBadConfig(t *testing.T) {
	// UCX 1.13 accepts unknown variable names silently, but checks values.
	_, err := NewContext(&Options{Config: map[string]string{"MAX_EAGER_LANES": "lots"}})
	if err == nil {
		t.Fatal("a malformed UCX value was accepted")
	}
	t.Log(err)
	if _, err := (&Worker{}).Connect(nil); err == nil {
		t.Fatal("connect to an empty address succeeded")
	}
}

// TestCloseUnderProgress closes a worker of each thread mode while other goroutines
// progress it and signal it: Close waits for a call in progress, and the calls after it
// find the worker closed. Under ThreadMulti the binding once took no lock at all, and a
// worker destroyed under a running ucp_worker_progress crashed the process.
func TestCloseUnderProgress(t *testing.T) {
	for _, mode := range []ThreadMode{ThreadSerialized, ThreadSingle, ThreadMulti} {
		for range 20 {
			c, err := NewContext(&Options{Config: map[string]string{"TLS": "sm"}})
			if err != nil {
				t.Fatal(err)
			}
			w, err := c.NewWorker(mode)
			if err != nil {
				t.Fatal(err)
			}
			started := make(chan struct{}, 4)
			var done sync.WaitGroup
			for range 4 {
				done.Go(func() {
					started <- struct{}{}
					for w.Signal() == nil {
						w.Progress()
					}
				})
			}
			for range 4 {
				<-started
			}
			if err := w.Close(); err != nil {
				t.Fatalf("mode %d: close: %v", mode, err)
			}
			done.Wait() // every goroutine saw ErrClosed from Signal
			if n := w.Progress(); n != 0 {
				t.Fatalf("mode %d: progress after close handled %d events", mode, n)
			}
			if err := w.Signal(); err != ErrClosed {
				t.Fatalf("mode %d: signal after close: %v, want ErrClosed", mode, err)
			}
			c.Close()
		}
	}
}
