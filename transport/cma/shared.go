package cma

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Alloc returns n bytes of zeroed memory that readers on this node can map
// into their own address space (a shared mapping of a memory file), the
// analogue of MPI_Win_allocate_shared: a block described from it is read
// by a plain memory copy out of the reader's mapping, three to four times
// as fast as process_vm_readv, which pins and copies page by page in the
// kernel (BenchmarkRead). Other blocks still move by process_vm_readv.
// Free releases it.
func Alloc(n int) ([]byte, error) {
	if n <= 0 {
		return nil, fmt.Errorf("cma: Alloc(%d): want a positive size", n)
	}
	fd, err := unix.MemfdCreate("couplet-shared", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("cma: memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(n)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cma: ftruncate of %d bytes: %w", n, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cma: fstat: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cma: mmap of %d bytes: %w", n, err)
	}
	if shmemHugeOnAdvice() {
		unix.Madvise(mem, unix.MADV_HUGEPAGE)
	}
	owned.Lock()
	owned.list = append(owned.list, region{addr: uintptr(unsafe.Pointer(&mem[0])), n: n, fd: fd, ino: st.Ino})
	owned.Unlock()
	return mem, nil
}

// shmemHugeOnAdvice says whether the kernel backs shared memory files with huge pages
// only where asked (MADV_HUGEPAGE), so that Alloc asks. Elsewhere the mark gives no huge
// pages ("never", "deny") or is not needed ("always", "within_size"), but it still has
// khugepaged scan the process for the rest of its life, holding the process's mmap lock
// across its reschedule points: on the 2-core VM of docs/PERFORMANCE.md (shmem huge pages
// "never"), khugepaged sat runnable beside five spinning MPI ranks and a writer rank of
// bench's TestRunExchange waited on that lock in munmap until the test timed out.
func shmemHugeOnAdvice() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/shmem_enabled")
	return err == nil && bytes.Contains(b, []byte("[advise]"))
}

// Free releases memory from Alloc. Readers that mapped it keep their
// mapping (and the pages) until they drop it.
func Free(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("cma: Free of an empty slice")
	}
	addr := uintptr(unsafe.Pointer(&b[0]))
	owned.Lock()
	defer owned.Unlock()
	for i, r := range owned.list {
		if r.addr == addr && r.n == len(b) {
			owned.list = append(owned.list[:i], owned.list[i+1:]...)
			return errors.Join(unix.Munmap(b), unix.Close(r.fd))
		}
	}
	return fmt.Errorf("cma: Free of %d bytes at %#x that Alloc did not return", len(b), addr)
}

// region is memory of this process from Alloc.
type region struct {
	addr uintptr
	n    int
	fd   int    // the memory file, which readers duplicate (pidfd_getfd)
	ino  uint64 // its inode: tells the file from a later one on the same fd
}

// owned lists this process's regions.
var owned struct {
	sync.Mutex
	list []region
}

// regionOf finds the region that holds [addr, addr+n), if any.
func regionOf(addr uintptr, n int64) (region, bool) {
	owned.Lock()
	defer owned.Unlock()
	for _, r := range owned.list {
		if addr >= r.addr && int64(addr-r.addr)+n <= int64(r.n) {
			return r, true
		}
	}
	return region{}, false
}
