package agent

import (
	"sync"
)

// contentHasher checks a download on a goroutine of its own against the content hash the
// signed record names, so that checking the bytes already received overlaps receiving
// the next ones instead of adding to the staging time, and no second pass over the file
// is needed. The record's CRC-32C is not recomputed here: the owner's agent checked it
// against the same bytes it hashed when it published, and the signed BLAKE3-256 is the
// stronger check of the two, so a second pass would only cost time. The receiver fills buffers it takes from the hasher and
// hands them over with Write: no copy. Buffers hold a piece of hashPiece bytes, so that
// even a file of one chunk is checked while it arrives; at most hasherDepth are in flight.
type contentHasher struct {
	in     chan []byte
	free   chan []byte
	made   int
	done   chan struct{}
	sum    []byte
	closed bool
}

const (
	hashPiece   = 128 << 10
	hasherDepth = 16
)

// chunkBufs recycles the hashers' buffers across downloads, so a small file does not
// pay for allocating and zeroing its chunk buffers every time.
var chunkBufs sync.Pool

// newContentHasher starts a hasher; with skip (Options.SkipContentHash) it only passes
// the buffers back, and Sum returns nil.
func newContentHasher(skip bool) *contentHasher {
	c := &contentHasher{in: make(chan []byte, hasherDepth), free: make(chan []byte, hasherDepth), done: make(chan struct{})}
	go func() {
		h := newContentHash()
		for p := range c.in {
			if !skip {
				h.Write(p)
			}
			c.free <- p
		}
		if !skip {
			c.sum = h.Sum(nil)
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

// Sum waits until every queued byte is hashed and returns the content hash; call it once.
func (c *contentHasher) Sum() []byte {
	c.close()
	<-c.done
	return c.sum
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
