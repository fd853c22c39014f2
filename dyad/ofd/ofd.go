// Package ofd takes open-file-description locks (F_OFD_SETLK) with a timeout. Unlike
// POSIX record locks, an OFD lock belongs to the open file, so closing some other
// descriptor of the same file elsewhere in the process does not drop it, and two opens
// in one process exclude each other.
//
// A wait polls the non-blocking F_OFD_SETLK with a growing sleep instead of parking an OS
// thread in F_OFD_SETLKW: a thousand waiters cost a thousand sleeping goroutines, not a
// thousand threads, and nothing is left behind when a wait times out.
package ofd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// ErrTimeout is wrapped when a lock was not granted in time.
var ErrTimeout = errors.New("lock wait timed out")

// The poll interval starts short, so an uncontended hand-over is quick, and grows to a
// bound, so a long wait costs little.
const (
	minPoll = 500 * time.Microsecond
	maxPoll = 20 * time.Millisecond
)

// Lock locks the whole of f, exclusively or shared, waiting up to timeout (<= 0: no limit).
func Lock(f *os.File, exclusive bool, timeout time.Duration) error {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	err := LockContext(ctx, f, exclusive)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("ofd: lock %s: %w after %v", f.Name(), ErrTimeout, timeout)
	}
	return err
}

// LockContext locks the whole of f, exclusively or shared, until ctx ends. A wait that
// runs out of time wraps both ErrTimeout and ctx's error.
func LockContext(ctx context.Context, f *os.File, exclusive bool) error {
	var timer *time.Timer
	for wait := minPoll; ; wait = min(2*wait, maxPoll) {
		switch got, err := TryLock(f, exclusive); {
		case err != nil:
			return err
		case got:
			return nil
		}
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("ofd: lock %s: %w: %w", f.Name(), ErrTimeout, ctx.Err())
			}
			return fmt.Errorf("ofd: lock %s: %w", f.Name(), ctx.Err())
		}
	}
}

// TryLock locks the whole of f, exclusively or shared, if no other open file holds a
// conflicting lock, and says whether it did; it never waits.
func TryLock(f *os.File, exclusive bool) (bool, error) {
	typ := int16(unix.F_RDLCK)
	if exclusive {
		typ = unix.F_WRLCK
	}
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart}
	sc, err := f.SyscallConn()
	if err != nil {
		return false, fmt.Errorf("ofd: lock %s: %w", f.Name(), err)
	}
	var lerr error
	if err := sc.Control(func(fd uintptr) {
		for {
			lerr = unix.FcntlFlock(fd, unix.F_OFD_SETLK, &lk)
			if lerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return false, fmt.Errorf("ofd: lock %s: %w", f.Name(), err)
	}
	switch lerr {
	case nil:
		return true, nil
	case unix.EAGAIN, unix.EACCES:
		return false, nil
	}
	return false, fmt.Errorf("ofd: lock %s: %w", f.Name(), lerr)
}

// Unlock releases f's lock.
func Unlock(f *os.File) error {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: io.SeekStart}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}
