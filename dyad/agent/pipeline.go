package agent

import (
	"os"
	"sync/atomic"
)

// fileWriter is the middle stage of the rpc DTL's receive pipeline. The receiving
// goroutine fills a buffer from the socket and hands it here; this goroutine writes it
// into the temporary file and passes it on to the hasher. Writing a new file's bytes
// into the page cache costs about as much CPU as receiving them, so running the two on
// goroutines of their own lets them overlap on separate cores instead of adding up.
type fileWriter struct {
	in     chan []byte
	done   chan struct{}
	fail   atomic.Pointer[error]
	closed bool
}

// startFileWriter starts writing pieces to f, in order, handing each to next once written
// (after a failed write, pieces are only handed on).
func startFileWriter(f *os.File, next func([]byte)) *fileWriter {
	w := &fileWriter{in: make(chan []byte, hasherDepth), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for p := range w.in {
			if w.Err() == nil {
				if _, err := f.Write(p); err != nil {
					w.fail.Store(&err)
				}
			}
			next(p)
		}
	}()
	return w
}

// Write queues p to be written; the caller must not touch p afterwards.
func (w *fileWriter) Write(p []byte) { w.in <- p }

// Err returns the first write error so far.
func (w *fileWriter) Err() error {
	if e := w.fail.Load(); e != nil {
		return *e
	}
	return nil
}

// Close waits until every queued piece is written and handed on, and returns the first
// write error; later calls return it again.
func (w *fileWriter) Close() error {
	if !w.closed {
		w.closed = true
		close(w.in)
	}
	<-w.done
	return w.Err()
}
