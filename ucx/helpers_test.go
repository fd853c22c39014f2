package ucx

import (
	"context"
	"testing"
	"time"
)

// transports are the UCX_TLS settings that work on this platform
// (REFERENCE.md §5): TCP and shared memory.
var transports = []string{"tcp", "sm"}

// errModeFor is the strongest error mode a transport supports in UCX 1.13:
// shared memory has no peer failure detection.
func errModeFor(tls string) ErrMode {
	if tls == "tcp" {
		return ErrModePeer
	}
	return ErrModeNone
}

const testTimeout = 20 * time.Second

// node is one side of a test connection: its own context and worker.
type node struct {
	ctx *Context
	w   *Worker
}

func newNode(tb testing.TB, tls string) *node {
	tb.Helper()
	c, err := NewContext(&Options{Config: map[string]string{"TLS": tls}, ErrMode: errModeFor(tls)})
	if err != nil {
		tb.Fatal(err)
	}
	w, err := c.NewWorker(ThreadSerialized)
	if err != nil {
		c.Close()
		tb.Fatal(err)
	}
	n := &node{c, w}
	tb.Cleanup(func() {
		n.w.Close()
		n.ctx.Close()
	})
	return n
}

// connect returns an endpoint from a to b.
func connect(tb testing.TB, a, b *node) *Endpoint {
	tb.Helper()
	addr, err := b.w.Address()
	if err != nil {
		tb.Fatal(err)
	}
	ep, err := a.w.Connect(addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		// A graceful close needs the peer to answer.
		stop := serve(b.w)
		defer stop()
		if err := ep.Close(5 * time.Second); err != nil {
			tb.Logf("close endpoint: %v", err)
		}
	})
	return ep
}

// serve keeps a worker progressing in the background, as a target of
// one-sided operations over transports that need the target's help
// (tcp), until the returned function is called.
func serve(w *Worker) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Wait(ctx, func() bool { return false })
	}()
	return func() {
		cancel()
		<-done
	}
}

// sendAndReceive sends src with tag on ep and waits until both the send and
// the posted receive recv complete: a rendezvous needs both workers
// progressing at once, so the send waits on a goroutine of its own.
func sendAndReceive(tb testing.TB, ep *Endpoint, src []byte, tag uint64, recv *Request) {
	tb.Helper()
	send, err := ep.SendTag(src, tag)
	if err != nil {
		tb.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() { sent <- send.Wait(testTimeout) }()
	if err := recv.Wait(testTimeout); err != nil {
		tb.Fatal(err)
	}
	if err := <-sent; err != nil {
		tb.Fatal(err)
	}
}

// pattern fills b with bytes that depend on seed and position.
func pattern(b []byte, seed byte) {
	for i := range b {
		b[i] = byte(i*7+i>>11) ^ seed
	}
}

// firstBad is the index of the first byte of b that differs from
// pattern, or -1.
func firstBad(b []byte, seed byte) int {
	for i := range b {
		if b[i] != byte(i*7+i>>11)^seed {
			return i
		}
	}
	return -1
}

// checkPattern fails the test at the first byte of b that differs from pattern.
func checkPattern(tb testing.TB, what string, b []byte, seed byte) {
	tb.Helper()
	if i := firstBad(b, seed); i >= 0 {
		tb.Fatalf("%s: byte %d of %d is %#x, want %#x", what, i, len(b), b[i], byte(i*7+i>>11)^seed)
	}
}
