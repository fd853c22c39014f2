package cma

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// maxAttached bounds the owners' regions a reader keeps mapped; beyond it
// the least recently used unused one is unmapped. A mapping keeps the
// owner's pages alive after the owner freed them, so the bound is small.
const maxAttached = 32

// attachment is an owner's region mapped read-only into this process.
type attachment struct {
	pid  int
	ino  uint64
	mem  []byte
	refs int   // reads using it now
	used int64 // tick of the last use, for eviction
}

var attached struct {
	sync.Mutex
	list []*attachment
	tick int64
}

// attach maps the owner's region that d names, or returns the mapping made
// for an earlier block of it, with the function that ends this use. It
// fails when the region cannot be mapped (the kernel refuses the file's
// duplication, the owner closed it, a different file holds its descriptor
// now, or it is smaller than d says): the caller reads another way.
func attach(d Desc) ([]byte, func(), error) {
	need := d.Off + d.Len
	attached.Lock()
	defer attached.Unlock()
	attached.tick++
	for _, a := range attached.list {
		if a.pid == d.Pid && a.ino == d.Region && int64(len(a.mem)) >= need {
			a.refs++
			a.used = attached.tick
			return a.mem, release(a), nil
		}
	}
	mem, err := mapRegion(d.Pid, d.Fd, d.Region, need)
	if err != nil {
		return nil, nil, err
	}
	a := &attachment{pid: d.Pid, ino: d.Region, mem: mem, refs: 1, used: attached.tick}
	attached.list = append(attached.list, a)
	evict()
	return mem, release(a), nil
}

func release(a *attachment) func() {
	return func() {
		attached.Lock()
		a.refs--
		attached.Unlock()
	}
}

// evict unmaps the least recently used idle mappings beyond maxAttached.
func evict() {
	for len(attached.list) > maxAttached {
		old := -1
		for i, a := range attached.list {
			if a.refs == 0 && (old < 0 || a.used < attached.list[old].used) {
				old = i
			}
		}
		if old < 0 {
			return
		}
		unix.Munmap(attached.list[old].mem)
		attached.list = append(attached.list[:old], attached.list[old+1:]...)
	}
}

// Detach unmaps every owner's region this process mapped and not in use:
// a transport calls it at close.
func Detach() {
	attached.Lock()
	defer attached.Unlock()
	kept := attached.list[:0]
	for _, a := range attached.list {
		if a.refs > 0 {
			kept = append(kept, a)
			continue
		}
		unix.Munmap(a.mem)
	}
	clear(attached.list[len(kept):])
	attached.list = kept
}

// mapRegion duplicates descriptor fd of process pid and maps the file
// read-only, checking that it is the file with inode ino and holds need
// bytes.
func mapRegion(pid, fd int, ino uint64, need int64) ([]byte, error) {
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("cma: pidfd_open(%d): %w", pid, err)
	}
	defer unix.Close(pfd)
	f, err := unix.PidfdGetfd(pfd, fd, 0)
	if err != nil {
		return nil, fmt.Errorf("cma: pidfd_getfd(%d, %d): %w", pid, fd, err)
	}
	defer unix.Close(f)
	var st unix.Stat_t
	if err := unix.Fstat(f, &st); err != nil {
		return nil, fmt.Errorf("cma: fstat of pid %d's fd %d: %w", pid, fd, err)
	}
	if st.Ino != ino || st.Size < need || need <= 0 {
		return nil, fmt.Errorf("cma: pid %d's fd %d is inode %d of %d bytes, want inode %d of at least %d", pid, fd, st.Ino, st.Size, ino, need)
	}
	// Populate now: one pass over the page tables instead of a fault per
	// page during the first copy.
	mem, err := unix.Mmap(f, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("cma: mmap of pid %d's region: %w", pid, err)
	}
	return mem, nil
}
