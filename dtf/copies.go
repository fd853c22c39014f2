package dtf

import (
	"golang.org/x/sys/unix"
)

// bigCopy is the size from which a writer's copy of put data lives outside
// the Go heap (see copyArena).
const bigCopy = 1 << 20

// copyArena holds the copies a writer makes of put data during one epoch
// (blocking puts that must copy, buffered puts, conversions). Copies of
// bigCopy bytes or more are mapped memory, unmapped when the epoch's sends
// are complete: on the Go heap, a single copy of an array of hundreds of
// megabytes doubles the heap and starts a garbage collection whose idle
// mark workers take a core for a second or more, which on a node with more
// ranks than cores is taken from the data in flight. Mapped copies are also
// backed by huge pages where the kernel allows, which single-copy reads
// of them need to be fast.
type copyArena struct {
	mapped [][]byte
}

// alloc returns n zeroed bytes that stay valid until release.
func (a *copyArena) alloc(n int64) []byte {
	if n < bigCopy {
		return make([]byte, n)
	}
	mem, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, n) // the heap still works, only slower
	}
	unix.Madvise(mem, unix.MADV_HUGEPAGE) // a hint: 4 KiB pages otherwise
	a.mapped = append(a.mapped, mem)
	return mem
}

// release unmaps every mapped copy; nothing may use them afterwards (every
// send of the epoch has completed).
func (a *copyArena) release() {
	for _, m := range a.mapped {
		unix.Munmap(m)
	}
	clear(a.mapped)
	a.mapped = a.mapped[:0]
}

// abandon forgets the mapped copies without unmapping them: after a failed
// epoch a send to a dead peer may still be reading one, and a leak is
// better than a fault.
func (a *copyArena) abandon() { a.mapped = nil }
