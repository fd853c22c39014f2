package dtf

import "github.com/couplet-hpc/couplet/internal/hugemem"

// bigCopy is the size from which a writer's copy of put data lives outside
// the Go heap (see copyArena).
const bigCopy = 1 << 20

// copyArena holds the copies a writer makes of put data (blocking puts that
// must copy, buffered puts, conversions). Copies of bigCopy bytes or more
// are mapped memory: on the Go heap, a single copy of an array of hundreds
// of megabytes doubles the heap and starts a garbage collection whose idle
// mark workers take a core for a second or more, which on a node with more
// ranks than cores is taken from the data in flight. The mappings of one
// epoch are reused by the next (first touch of fresh pages costs more than
// the copy itself), and those the next epoch did not reuse are unmapped
// then; the session's end unmaps the rest. They are backed by huge pages
// where the kernel allows (hugemem), which single-copy reads of them need to
// be fast.
type copyArena struct {
	used [][]byte // handed out this epoch
	free [][]byte // mapped, handed out last epoch, free for this one
}

// alloc returns n bytes that stay valid until the epoch's release. Their
// content is undefined: callers overwrite them whole.
func (a *copyArena) alloc(n int64) []byte {
	if n < bigCopy {
		return make([]byte, n)
	}
	best := -1
	for i, m := range a.free {
		if int64(len(m)) >= n && (best < 0 || len(m) < len(a.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		m := a.free[best]
		a.free = append(a.free[:best], a.free[best+1:]...)
		a.used = append(a.used, m)
		return m[:n]
	}
	mem, err := hugemem.Map(int(n))
	if err != nil {
		return make([]byte, n) // the heap still works, only slower
	}
	a.used = append(a.used, mem)
	return mem
}

// release ends an epoch whose sends all completed: this epoch's copies
// become free for the next one, and those free ones it did not reuse are
// unmapped.
func (a *copyArena) release() {
	unmapAll(a.free)
	a.free, a.used = a.used, a.free[:0]
}

// close unmaps every copy at the session's end.
func (a *copyArena) close() {
	a.release()
	a.release()
}

// abandon forgets this epoch's copies without unmapping them: after a failed
// epoch a send to a dead peer may still be reading one, and a leak is
// better than a fault.
func (a *copyArena) abandon() { a.used = nil }

// mapped is the number of mappings the arena holds.
func (a *copyArena) mapped() int { return len(a.used) + len(a.free) }

func unmapAll(ms [][]byte) {
	for _, m := range ms {
		hugemem.Unmap(m)
	}
	clear(ms)
}
