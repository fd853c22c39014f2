package bench

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// setting is a kernel setting, a sysfs file, that a run changes for its measurements
// because it makes random rounds slow (see the report's Machine table): was is its value
// before, set the value during them.
type setting struct {
	path, was, set string
}

// applySettings writes each setting's value and returns what writes the earlier values
// back. The restore runs once, whichever comes first: a call, or SIGINT or SIGTERM to
// the process (unless it ignores them), after which the signal takes its usual course.
// When a write fails (not root), those written so far are restored and the error
// returned. A setting changed meanwhile by someone else is restored all the same.
func applySettings(ss []setting) (restore func() error, err error) {
	var done []setting
	var once sync.Once
	var rerr error
	sigs := make(chan os.Signal, 1)
	restore = func() error {
		once.Do(func() {
			signal.Stop(sigs)
			close(sigs) // ends the goroutine below; Stop guarantees no more sends
			for _, s := range done {
				if err := os.WriteFile(s.path, []byte(s.was), 0); err != nil {
					rerr = errors.Join(rerr, fmt.Errorf("bench: set %s back to %s: %w", s.path, s.was, err))
				}
			}
		})
		return rerr
	}
	for _, s := range ss {
		if err := os.WriteFile(s.path, []byte(s.set), 0); err != nil {
			return func() error { return nil }, errors.Join(fmt.Errorf("bench: set %s to %s: %w", s.path, s.set, err), restore())
		}
		done = append(done, s)
	}
	if len(done) > 0 {
		// A signal the process was started ignoring (SIGINT in a background job) stays
		// ignored: caught here, it would end the change but not the run.
		for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
			if !signal.Ignored(s) {
				signal.Notify(sigs, s)
			}
		}
		go func() {
			if s, ok := <-sigs; ok {
				restore()
				syscall.Kill(os.Getpid(), s.(syscall.Signal))
			}
		}()
	}
	return restore, nil
}
