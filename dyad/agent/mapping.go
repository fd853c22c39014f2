package agent

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only; nil where it cannot (size 0, or a file system
// that does not map). The caller unmaps it.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 {
		return nil
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	return m
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
