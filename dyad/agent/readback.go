package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// readBack checks the content tag of a file that the rpc DTL fills in the kernel (splice
// from the socket), beside the transfer: as ranges arrive, the chunks they complete are
// tagged by a few goroutines of its own (hashers), each taking the next chunks not yet
// taken, and the tags are folded in order as they complete. The chunks' tags do not
// depend on each other, so the check uses whatever cores are idle while bytes arrive, and
// when the last byte is in, the goroutine that waits for the check tags the rest with them
// instead of idling. Each hasher reads its chunks from the page cache (pread) into a
// buffer of its own. Reading them through a mapping of the file instead, which copies
// nothing, made the whole staging slower at every size on a 2-core AMD EPYC VM (paired
// runs of the staging harness, median staging time mapped against read: 1 MiB 1.8-2.7
// ms against 1.6-2.6, 4 MiB 3.2-4.1 against 1.9-2.7, 16 MiB 11.9-12.5 against 7.2-8.5, 256 MiB
// 163-180 against 126-154, 1 GiB 675-686 against 530-604): the mapping's page faults and
// teardown cost more than the copy they save.
type readBack struct {
	f    *os.File
	size int64
	h    *contentHasher
	// tags[i % len(tags)] is chunk i's tag from when it is made until it is folded
	// (at most foldWindow slots); made says which are.
	tags   [][tagSize]byte
	made   []bool
	window int64 // len(tags)

	mu     sync.Mutex
	more   sync.Cond // signalled when chunks become ready or are folded, or the read-back ends
	have   int64     // bytes in the file, in order from 0
	ready  int64     // chunks whose bytes are all in the file
	taken  int64     // chunks handed to a hasher
	folded int64     // chunks whose tags are folded in
	ended  bool      // no more ranges: the last chunk is ready, or the staging failed
	err    error
	busy   sync.WaitGroup // the hashers
	done   bool           // close ran
}

// foldWindow bounds the chunks taken ahead of the fold (a hasher that falls behind holds
// the others back once they are this far ahead), so that the tags waiting for the fold
// take 64 KiB whatever the file's size. A variable so that a test can make it small.
var foldWindow int64 = 4096

// readBackHashers is the most goroutines that tag one file's chunks at a time, besides
// the one that waits for the tag at the end.
var readBackHashers = min(runtime.GOMAXPROCS(0), 4)

// jobChunks is how many chunks a hasher takes at a time: a hashPiece.
const jobChunks = hashPiece / contentChunk

// startReadBack starts checking the ranges of f, a file of size bytes once complete, that
// add queues.
func startReadBack(f *os.File, h *contentHasher, size int64) *readBack {
	// A file of fewer chunks than the window needs no more slots than it has chunks.
	w := max(1, min(foldWindow, (size+contentChunk-1)/contentChunk))
	r := &readBack{f: f, size: size, h: h, window: w, tags: make([][tagSize]byte, w), made: make([]bool, w)}
	r.more.L = &r.mu
	for range readBackHashers {
		s := h.mac.newSealer()
		r.busy.Add(1)
		go func() {
			defer r.busy.Done()
			r.hash(s)
		}()
	}
	return r
}

// add tells the hashers that the n bytes at off, which follow those added before, are in
// the file.
func (r *readBack) add(off, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.ended:
		return // after a failure, ranges are dropped, not read
	case off != r.have || n < 0:
		r.fail(fmt.Errorf("read back %d bytes at %d after %d: ranges out of order", n, off, r.have))
		return
	case off+n > r.size:
		r.fail(fmt.Errorf("read back %d bytes at %d of a %d-byte file: %w", n, off, r.size, io.ErrUnexpectedEOF))
		return
	}
	r.have += n
	if k := r.have / contentChunk; k > r.ready {
		r.ready = k
		r.more.Broadcast()
	}
}

// fail records err, the first failure, and ends the read-back; r.mu is held.
func (r *readBack) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.ended = true
	r.more.Broadcast()
}

// take hands out up to jobChunks ready chunks [lo, hi) and the bytes in the file then;
// ok is false once there will be no more.
func (r *readBack) take() (lo, hi, have int64, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for (r.taken >= r.ready || r.taken >= r.folded+r.window) && !(r.ended && r.taken >= r.ready) && r.err == nil {
		r.more.Wait()
	}
	if r.err != nil || r.taken >= r.ready {
		return 0, 0, 0, false
	}
	lo, hi = r.taken, min(r.ready, r.taken+jobChunks, r.folded+r.window)
	r.taken = hi
	return lo, hi, r.have, true
}

// pieceBufs keeps the hashers' read buffers from one staging to the next. A buffer made
// afresh for every hasher of every staging is memory the kernel faults in page by page
// while the hasher reads into it: in a process with a large heap, so rarely collected
// that every allocation lands on fresh pages, the rpc DTL staged 1 MiB in 2.2-2.3 ms,
// half of it the hash's, against 1.5 ms and under a tenth with the buffers reused
// (couplet bench's case 4, 28 rounds, paired launches).
var pieceBufs = sync.Pool{New: func() any { return new([hashPiece]byte) }}

// hash tags the chunks it takes until there are no more.
func (r *readBack) hash(s *chunkSealer) {
	var buf *[hashPiece]byte
	defer func() {
		if buf != nil {
			pieceBufs.Put(buf)
		}
	}()
	for {
		lo, hi, have, ok := r.take()
		if !ok {
			return
		}
		off, end := lo*contentChunk, min(hi*contentChunk, have)
		if buf == nil {
			buf = pieceBufs.Get().(*[hashPiece]byte)
		}
		err := r.tagRead(s, lo, off, buf[:end-off])
		r.mu.Lock()
		if err != nil {
			r.fail(err)
			r.mu.Unlock()
			return
		}
		r.fold(lo, hi)
		r.mu.Unlock()
	}
}

// fold marks chunks [lo, hi) tagged and folds in every tag that completes the run from
// the last one folded; r.mu is held.
func (r *readBack) fold(lo, hi int64) {
	for i := lo; i < hi; i++ {
		r.made[i%r.window] = true
	}
	k := r.folded
	for ; r.made[k%r.window] && k < r.taken; k++ {
		r.h.mac.foldTag(&r.tags[k%r.window])
		r.made[k%r.window] = false
	}
	if k > r.folded {
		r.folded = k
		r.more.Broadcast()
	}
}

// tagRead reads the bytes at off into p, then tags them as the chunks from chunk lo.
// Bytes missing from the file are an error (io.EOF or io.ErrUnexpectedEOF), never a
// shorter hash.
func (r *readBack) tagRead(s *chunkSealer, lo, off int64, p []byte) error {
	k, err := r.f.ReadAt(p, off)
	if k < len(p) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("read back %d bytes at %d: %w", len(p), off, err)
	}
	r.tagChunks(s, lo, p)
	return nil
}

// tagChunks tags p, the bytes of the chunks from chunk lo on.
func (r *readBack) tagChunks(s *chunkSealer, lo int64, p []byte) {
	for i := lo; len(p) > 0; i++ {
		c := p[:min(len(p), contentChunk)]
		s.tag(uint64(i), c, &r.tags[i%r.window])
		p = p[len(c):]
	}
}

// close ends the ranges, helps tag the chunks still waiting, and returns the first
// error, after which the hasher's Sum is the file's content tag; later calls return the
// error again.
func (r *readBack) close() error { return r.end(false) }

// abort ends the read-back of a failed staging: the chunks waiting are not tagged.
func (r *readBack) abort() { r.end(true) }

func (r *readBack) end(abort bool) error {
	r.mu.Lock()
	if r.done {
		defer r.mu.Unlock()
		return r.err
	}
	r.done = true
	if abort {
		r.fail(errAborted)
	} else if !r.ended {
		r.ended = true
		r.ready = (r.have + contentChunk - 1) / contentChunk
		r.more.Broadcast()
	}
	r.mu.Unlock()
	if !abort {
		r.hash(r.h.mac.newSealer())
	}
	r.busy.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.chunked = true
	if r.err == nil {
		if r.have != r.size {
			r.err = fmt.Errorf("read back %d bytes of a %d-byte file: %w", r.have, r.size, io.ErrUnexpectedEOF)
		} else {
			r.h.sum = r.h.mac.sumOf(r.have)
		}
	}
	return r.err
}

// errAborted is what a read-back ended by abort reports.
var errAborted = errors.New("read back aborted")
