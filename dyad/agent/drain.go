package agent

import (
	"os"
	"sync/atomic"
)

// slotDrain empties the ucx DTL's window slots into a download's temporary file, on two
// goroutines of its own: one writes each slot a piece of hashPiece bytes at a time
// (writeSparse), the other hashes each piece once it is written (while it is still in
// cache from the write) and acknowledges a slot once its last piece is hashed, after
// which the producer may overwrite it. The write and the hash of a slot overlap each
// other, the producer's read of the next slot, and the wait for its ready message.
//
// In the bench's rounds, pieces of 128 KiB staged 1 GiB in 0.56 s where pieces of
// 256 KiB took 0.76-0.79 s, on a VM that hands freed memory back to its host (free page
// reporting): the larger writes into the page cache met more pages that the host had to
// fault in again. Pieces of 64 KiB were slower at 256 MiB. One goroutine that wrote and
// then hashed each piece, for the cache, was slower than the two: 16 MiB staged in
// 11.3-11.6 ms against 9.2-9.5 (BenchmarkStagingUCX, three interleaved pairs of runs).
type slotDrain struct {
	slots  chan span // whole slots, from the caller to the writer
	pieces chan span // written pieces, from the writer to the hasher
	done   chan struct{}
	fail   atomic.Pointer[error]
	closed bool
	// holes are the zero runs the writer left unwritten: read them after close.
	holes holes
}

// span is a slot, or a piece of one (p), of the slot at file offset off; last marks a
// slot's last piece, after which the slot is acknowledged.
type span struct {
	p    []byte
	off  int64
	last bool
}

// startSlotDrain starts draining into f, hashing with h and acknowledging each slot with
// ack(offset of the slot); depth is the number of slots the window has.
func startSlotDrain(f *os.File, h *contentHasher, depth int, ack func(off int64) error) *slotDrain {
	s := &slotDrain{slots: make(chan span, depth), pieces: make(chan span, hasherDepth), done: make(chan struct{})}
	go s.write(f)
	go s.hash(h, ack)
	return s
}

// hasherDepth bounds the pieces written and not yet hashed.
const hasherDepth = 16

func (s *slotDrain) write(f *os.File) {
	defer close(s.pieces)
	for sl := range s.slots {
		for p, off := sl.p, sl.off; len(p) > 0; {
			q := p[:min(len(p), hashPiece)]
			if s.err() == nil {
				if err := writeSparse(f, q, off, &s.holes); err != nil {
					s.setErr(err)
				}
			}
			p, off = p[len(q):], off+int64(len(q))
			s.pieces <- span{p: q, off: sl.off, last: len(p) == 0}
		}
	}
}

func (s *slotDrain) hash(h *contentHasher, ack func(off int64) error) {
	defer close(s.done)
	for q := range s.pieces {
		if s.err() != nil {
			continue // the download fails: only drain the queue
		}
		h.Write(q.p)
		if q.last {
			if err := ack(q.off); err != nil {
				s.setErr(err)
			}
		}
	}
}

// slot queues the filled slot p, the file's bytes at off; the caller must not let it be
// overwritten before its acknowledgement.
func (s *slotDrain) slot(p []byte, off int64) { s.slots <- span{p: p, off: off} }

func (s *slotDrain) setErr(err error) { s.fail.CompareAndSwap(nil, &err) }

// err returns the first write or acknowledgement error so far.
func (s *slotDrain) err() error {
	if e := s.fail.Load(); e != nil {
		return *e
	}
	return nil
}

// close waits until every queued slot is written, hashed and acknowledged (or skipped
// after an error) and returns the first error; later calls return it again.
func (s *slotDrain) close() error {
	if !s.closed {
		s.closed = true
		close(s.slots)
	}
	<-s.done
	return s.err()
}
