package agent

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// fileMap is a read-only mapping of a file's bytes from offset from on; empty (b nil)
// where there is none.
type fileMap struct {
	b    []byte
	from int64
}

// mapFile maps the bytes of f from offset from (a multiple of the page size) up to size,
// read-only; empty where there are none or the file system does not map. The caller
// unmaps it.
func mapFile(f *os.File, from, size int64) fileMap {
	if size <= from {
		return fileMap{}
	}
	m, err := unix.Mmap(int(f.Fd()), from, int(size-from), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return fileMap{}
	}
	return fileMap{b: m, from: from}
}

// covers reports whether the mapping holds the n bytes at off.
func (m fileMap) covers(off, n int64) bool {
	return m.b != nil && off >= m.from && off+n <= m.from+int64(len(m.b))
}

// unmap releases the mapping, if there is one.
func (m fileMap) unmap() {
	if m.b != nil {
		unix.Munmap(m.b)
	}
}

// faultGuard runs fn, which reads a file through its mapping. A file cut short under the
// mapping makes the read fault: faultGuard then returns errChanged instead of letting the
// fault crash the agent.
func faultGuard(fn func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errChanged, p)
		}
	}()
	fn()
	return nil
}

// errChanged is what a read through a mapping of a file cut short meanwhile reports.
var errChanged = errors.New("the file changed under the staging")
