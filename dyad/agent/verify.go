package agent

import (
	"io"
	"os"
	"sync"
)

// contentHasher checks a download on a goroutine of its own against the content tag the
// signed record names, so that checking the bytes already received overlaps receiving
// the next ones instead of adding to the staging time, and no second pass over the file
// is needed. The record's CRC-32C is not recomputed here: the owner's agent checked it
// against the same bytes it tagged when it published, and the signed tag is the
// stronger check of the two, so a second pass would only cost time. The receiver fills
// buffers it takes from the hasher and hands them over with Write: no copy. Buffers hold
// a piece of hashPiece bytes, so that even a file of one chunk is checked while it
// arrives; at most hasherDepth are in flight.
type contentHasher struct {
	in     chan []byte
	free   chan []byte
	made   int
	done   chan struct{}
	closed bool
	// mac is the record's content tag being computed, nil when the check is off.
	mac *ContentMAC
}

const (
	hashPiece   = 128 << 10
	hasherDepth = 16
	// readPiece is what hashAt reads from the page cache and hashes at a time: large
	// enough for few syscalls, a multiple of contentChunk so that the tag takes it in
	// place, small enough to stay in a core's 1 MiB L2 cache between the read and the tag.
	readPiece = 512 << 10
)

// readBufs recycles hashAt's buffers across downloads.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readPiece); return &b }}

// chunkBufs recycles the hashers' buffers across downloads, so a small file does not
// pay for allocating and zeroing its chunk buffers every time.
var chunkBufs sync.Pool

// newContentHasher starts a hasher of mac; with mac nil (Options.SkipContentHash) it
// only passes the buffers back, and Sum returns nil.
func newContentHasher(mac *ContentMAC) *contentHasher {
	c := &contentHasher{in: make(chan []byte, hasherDepth), free: make(chan []byte, hasherDepth), done: make(chan struct{}), mac: mac}
	go func() {
		for p := range c.in {
			if mac != nil {
				mac.Write(p)
			}
			c.free <- p
		}
		close(c.done)
	}()
	return c
}

// buffer returns a buffer of n <= hashPiece bytes for the caller to fill and hand over
// with Write, waiting for the hasher to give one back when hasherDepth are in flight.
func (c *contentHasher) buffer(n int) []byte {
	var b []byte
	select {
	case b = <-c.free:
	default:
		if c.made < hasherDepth {
			c.made++
			if v, ok := chunkBufs.Get().(*[]byte); ok {
				b = *v
			}
		} else {
			b = <-c.free
		}
	}
	if cap(b) < n {
		b = make([]byte, n)
	}
	return b[:n]
}

// Write hands p, a buffer from buffer, to the hashing goroutine: the caller must not
// touch p afterwards.
func (c *contentHasher) Write(p []byte) { c.in <- p }

// Copy queues a copy of p, for bytes that the caller must give back at once (a UCX
// window slot that the producer refills once it is acknowledged).
func (c *contentHasher) Copy(p []byte) {
	for len(p) > 0 {
		b := c.buffer(min(len(p), hashPiece))
		copy(b, p)
		c.Write(b)
		p = p[len(b):]
	}
}

// hashAt hashes the n bytes at off in f on the calling goroutine, each piece right after
// reading it, while it is in this core's cache: for a file that the kernel fills (the
// rpc DTL splices the socket into it), one copy out of the page cache and no hand-off to
// the hasher's goroutine. A caller uses either hashAt, from one goroutine, or
// buffer/Write/Copy, and calls Sum only after its last hashAt returned. Bytes missing
// from the file are an error (io.EOF or io.ErrUnexpectedEOF), never a shorter hash.
func (c *contentHasher) hashAt(f *os.File, off, n int64) error {
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	for n > 0 {
		// Each piece ends on a chunk boundary, so the tag takes the next one in place.
		p := (*bp)[:min(n, int64(len(*bp))-off%contentChunk)]
		k, err := f.ReadAt(p, off)
		if k < len(p) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if c.mac != nil {
			c.mac.Write(p)
		}
		off += int64(k)
		n -= int64(k)
	}
	return nil
}

// Sum waits until every queued byte is hashed and returns the content tag; call it once.
func (c *contentHasher) Sum() []byte {
	c.close()
	<-c.done
	if c.mac == nil {
		return nil
	}
	return c.mac.Sum()
}

// close ends the hashing goroutine (after a failed download too); the buffers it gives
// back go to the next download.
func (c *contentHasher) close() {
	if c.closed {
		return
	}
	c.closed = true
	close(c.in)
	go func() {
		<-c.done
		for {
			select {
			case b := <-c.free:
				chunkBufs.Put(&b)
			default:
				return
			}
		}
	}()
}
