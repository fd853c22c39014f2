// Package hugemem maps anonymous memory that the kernel backs with transparent huge
// pages, without marking it MADV_HUGEPAGE.
//
// A large buffer in 4 KiB pages costs its users: a cross-memory read pins the source
// pages one by one, and the kernel's copies into a buffer of small pages (a socket
// receive, process_vm_readv) ran at up to half the speed of those into huge pages. The
// usual way to huge pages where transparent huge pages are "madvise" only, the
// MADV_HUGEPAGE mark, has khugepaged scan the process for the rest of its life, and the
// scan holds the process's mmap lock across its reschedule points. On a node whose
// ranks outnumber its cores and spin in MPI, khugepaged (nice 19) then sat runnable but
// not running for seconds, and a rank's next mmap, munmap or brk waited on the lock:
// TestRunExchange timed out in about one run in thirty until its arrays lost the mark,
// and a writer of couplet bench's case 6a, whose UCX staging buffers still carried it,
// stayed in D in mmap for ten minutes.
//
// Map instead makes the pages huge at once: it populates the range
// (MADV_POPULATE_WRITE, Linux 5.14) and collapses it into huge pages (MADV_COLLAPSE,
// Linux 6.1), which marks nothing and leaves khugepaged out. The collapse copies the
// populated pages once, so a fresh mapping costs more than marked memory touched page
// by page (64 MiB here: 55 ms against 34): its users keep their mappings for reuse.
// Only where the kernel refuses either call (EINVAL: too old) does Map fall back to the
// mark; where a collapse fails for want of free huge pages, the range stays in small
// pages.
package hugemem

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Size is the huge page size the mappings are aligned to (x86-64, and arm64 with 4 KiB
// base pages).
const Size = 2 << 20

// Map returns n bytes of private anonymous memory, zeroed, starting at a multiple of
// Size, its whole huge pages collapsed where the kernel can (see the package
// documentation). Release it with Unmap, not unix.Munmap.
func Map(n int) ([]byte, error) {
	if n <= 0 {
		return nil, fmt.Errorf("hugemem: map %d bytes", n)
	}
	page := os.Getpagesize()
	length := (n + page - 1) / page * page
	// One huge page more than needed, so that an aligned start lies inside; the slack
	// before it and after the end goes back at once, leaving one mapping of length
	// bytes that Unmap can release whole.
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(length+Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("hugemem: map %d bytes: %w", n, err)
	}
	head := int((Size - uintptr(p)%Size) % Size)
	if head > 0 {
		unix.MunmapPtr(p, uintptr(head))
	}
	unix.MunmapPtr(unsafe.Add(p, head+length), uintptr(Size-head)) // never empty: head < Size
	b := unsafe.Slice((*byte)(unsafe.Add(p, head)), length)
	makeHuge(b, length/Size*Size, unix.Madvise)
	return b[:n], nil
}

// makeHuge populates b and collapses its first whole bytes (a multiple of Size) into
// huge pages with advise (unix.Madvise; a parameter so that a test can stand in for a
// kernel without the calls). Where the kernel lacks either call (EINVAL), whole gets
// the MADV_HUGEPAGE mark instead.
func makeHuge(b []byte, whole int, advise func([]byte, int) error) {
	if whole == 0 {
		return
	}
	err := advise(b, unix.MADV_POPULATE_WRITE)
	if err == nil {
		err = advise(b[:whole], unix.MADV_COLLAPSE)
	}
	if errors.Is(err, unix.EINVAL) {
		advise(b[:whole], unix.MADV_HUGEPAGE) // a hint: small pages otherwise
	}
}

// Unmap releases memory that Map returned (or a reslice of it from its first byte).
func Unmap(b []byte) error {
	if cap(b) == 0 {
		return nil
	}
	return unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(cap(b)))
}
