package agent

// contentHasher computes the content hash of a download on a goroutine of its own, so
// that hashing the bytes already received overlaps receiving the next ones instead of
// adding to the staging time. It queues copies of at most hasherDepth chunks.
type contentHasher struct {
	in     chan []byte
	free   chan []byte
	sum    chan []byte
	closed bool
}

const hasherDepth = 2

func newContentHasher() *contentHasher {
	c := &contentHasher{in: make(chan []byte, hasherDepth), free: make(chan []byte, hasherDepth+1), sum: make(chan []byte, 1)}
	go func() {
		h := newContentHash()
		for p := range c.in {
			h.Write(p)
			select {
			case c.free <- p:
			default:
			}
		}
		c.sum <- h.Sum(nil)
	}()
	return c
}

// Write queues a copy of p: the caller may reuse p at once.
func (c *contentHasher) Write(p []byte) {
	var b []byte
	select {
	case b = <-c.free:
	default:
	}
	if cap(b) < len(p) {
		b = make([]byte, len(p))
	}
	b = b[:len(p)]
	copy(b, p)
	c.in <- b
}

// Sum waits until every queued byte is hashed and returns the hash; call it once.
func (c *contentHasher) Sum() []byte {
	c.close()
	return <-c.sum
}

// close ends the hashing goroutine (after a failed download too).
func (c *contentHasher) close() {
	if !c.closed {
		c.closed = true
		close(c.in)
	}
}
