package agent

import (
	"os"
)

// readBack feeds the content hasher from a file that the rpc DTL fills in the kernel
// (splice from the socket): each range, once in the file, is read back from the page
// cache and hashed on a goroutine of its own (contentHasher.hashAt: read and hashed
// while in cache, no second hand-off), so that checking the bytes received overlaps
// receiving the next ones.
type readBack struct {
	in     chan [2]int64 // offset, length
	done   chan struct{}
	err    error
	closed bool
}

func startReadBack(f *os.File, h *contentHasher) *readBack {
	r := &readBack{in: make(chan [2]int64, 64), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for span := range r.in {
			if r.err != nil {
				continue
			}
			r.err = h.hashAt(f, span[0], span[1])
		}
	}()
	return r
}

// add queues the n bytes at off, which are in the file, for the hasher.
func (r *readBack) add(off, n int64) { r.in <- [2]int64{off, n} }

// close waits until every queued range went to the hasher and returns the first read
// error; later calls return it again.
func (r *readBack) close() error {
	if !r.closed {
		r.closed = true
		close(r.in)
	}
	<-r.done
	return r.err
}
