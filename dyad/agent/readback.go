package agent

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// readBack feeds the content hasher from a file that the rpc DTL fills in the kernel
// (splice from the socket): each range, once in the file, is hashed on a goroutine of its
// own, so that checking the bytes received overlaps receiving the next ones. The hasher
// reads the page cache through a read-only mapping of the file, without copying it:
// reading into a buffer first made the hash cost 1.4 times as much CPU (16 MiB: 4.8 ms
// against 3.4), on cores the transfer needs too. (In the bench's full rounds the staging
// times with either stayed within each other's spread, at 16 MiB and at 1 GiB.) Where the file cannot be mapped, each
// range is read (contentHasher.hashAt).
type readBack struct {
	in     chan [2]int64 // offset, length
	done   chan struct{}
	err    error
	closed bool
}

// startReadBack starts hashing the ranges of f, a file of size bytes once complete, that
// add queues.
func startReadBack(f *os.File, h *contentHasher, size int64) *readBack {
	var m []byte
	if size > 0 {
		m, _ = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	}
	return runReadBack(f, h, m)
}

// runReadBack starts the hasher goroutine over the mapping m of f (nil: read f). It
// unmaps m when it ends.
func runReadBack(f *os.File, h *contentHasher, m []byte) *readBack {
	r := &readBack{in: make(chan [2]int64, 64), done: make(chan struct{})}
	go func() {
		if m != nil {
			// Unmapped after the staging is told the hash is done (the deferred close
			// below runs first): tearing down the mapping of 16 MiB took 0.2 ms, which
			// the staging need not wait for.
			defer unix.Munmap(m)
			// A file cut short under the mapping faults: that fails the staging, it
			// does not crash the agent.
			debug.SetPanicOnFault(true)
		}
		defer close(r.done)
		for span := range r.in {
			if r.err != nil {
				continue // drained, so that add never blocks
			}
			if m == nil {
				r.err = h.hashAt(f, span[0], span[1])
			} else {
				r.err = hashMapped(h, m, span[0], span[1])
			}
		}
	}()
	return r
}

// hashMapped hashes the n bytes at off of the mapped file m. A range beyond the mapping
// is an error, as is a fault (the file shrank under it).
func hashMapped(h *contentHasher, m []byte, off, n int64) (err error) {
	if off < 0 || n < 0 || off+n > int64(len(m)) {
		return fmt.Errorf("read back %d bytes at %d of a %d-byte file: %w", n, off, len(m), io.ErrUnexpectedEOF)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("read back %d bytes at %d: the file changed under the staging: %v", n, off, p)
		}
	}()
	h.Write(m[off : off+n])
	return nil
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
