// Package ofd takes open-file-description locks (F_OFD_SETLKW) with a timeout. Unlike
// POSIX record locks, an OFD lock belongs to the open file, so closing some other
// descriptor of the same file elsewhere in the process does not drop it, and two opens
// in one process exclude each other.
package ofd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// ErrTimeout is wrapped when a lock was not granted in time.
var ErrTimeout = errors.New("lock wait timed out")

// Lock locks the whole of f, exclusively or shared, waiting up to timeout (<= 0: no limit).
// The blocking fcntl runs on its own thread; if the timeout fires first, that thread
// releases the lock as soon as it is granted, so nothing stays locked behind the caller.
func Lock(f *os.File, exclusive bool, timeout time.Duration) error {
	typ := int16(unix.F_RDLCK)
	if exclusive {
		typ = unix.F_WRLCK
	}
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart}
	// The waiting thread works on a duplicate descriptor of the same open file
	// description (so the lock is the same), which it owns and closes: the caller may
	// close f after a timeout without racing it or unlocking a reused descriptor.
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return fmt.Errorf("ofd: lock %s: %w", f.Name(), err)
	}
	done := make(chan error) // unbuffered: the result is taken by exactly one side
	abandoned := make(chan struct{})
	go func() {
		defer unix.Close(fd)
		var err error
		for {
			err = unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLKW, &lk)
			if err != unix.EINTR {
				break
			}
		}
		select {
		case done <- err:
		case <-abandoned:
			if err == nil {
				unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, &unix.Flock_t{Type: unix.F_UNLCK, Whence: io.SeekStart})
			}
		}
	}()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("ofd: lock %s: %w", f.Name(), err)
		}
		return nil
	case <-timer:
		close(abandoned)
		// The lock may have been granted just now: take it rather than leak it.
		select {
		case err := <-done:
			if err == nil {
				return nil
			}
		default:
		}
		return fmt.Errorf("ofd: lock %s: %w after %v", f.Name(), ErrTimeout, timeout)
	}
}

// Unlock releases f's lock.
func Unlock(f *os.File) error {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: io.SeekStart}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}
