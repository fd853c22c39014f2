package bench

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// damonAdmin is DAMON's sysfs interface.
const damonAdmin = "/sys/kernel/mm/damon/admin"

// runningKdamonds lists the kdamond directories under admin (DAMON's sysfs directory)
// whose state is "on".
func runningKdamonds(admin string) []string {
	kds, _ := filepath.Glob(filepath.Join(admin, "kdamonds", "[0-9]*"))
	var on []string
	for _, kd := range kds {
		if readTrim(filepath.Join(kd, "state")) == "on" {
			on = append(on, kd)
		}
	}
	return on
}

// damonMonitors describes the running kdamonds under admin, each context as its
// operations, sampling interval and scheme actions: "paddr, sampling every 500ms,
// pageout".
func damonMonitors(admin string) []string {
	var out []string
	for _, kd := range runningKdamonds(admin) {
		ctxs, _ := filepath.Glob(filepath.Join(kd, "contexts", "[0-9]*"))
		for _, c := range ctxs {
			parts := []string{orDash(readTrim(filepath.Join(c, "operations")))}
			if us, err := strconv.ParseInt(readTrim(filepath.Join(c, "monitoring_attrs", "intervals", "sample_us")), 10, 64); err == nil {
				parts = append(parts, fmt.Sprintf("sampling every %s", time.Duration(us)*time.Microsecond))
			}
			schemes, _ := filepath.Glob(filepath.Join(c, "schemes", "[0-9]*"))
			for _, sc := range schemes {
				if a := readTrim(filepath.Join(sc, "action")); a != "" {
					parts = append(parts, a)
				}
			}
			out = append(out, strings.Join(parts, ", "))
		}
	}
	return out
}

// pauseDAMON turns the running kdamonds under admin off and returns what turns them
// back on (their settings stay in sysfs, so each restarts as it was). The resume runs
// once, whichever comes first: a call, or SIGINT or SIGTERM to the process (unless it
// ignores them), after which the signal takes its usual course. With none running it
// does nothing; when a kdamond cannot be turned off (not root), those turned off so
// far are resumed and the error returned.
func pauseDAMON(admin string) (resume func() error, err error) {
	var paused []string
	var once sync.Once
	var rerr error
	sigs := make(chan os.Signal, 1)
	resume = func() error {
		once.Do(func() {
			signal.Stop(sigs)
			close(sigs) // ends the goroutine below; Stop guarantees no more sends
			for _, kd := range paused {
				if err := os.WriteFile(filepath.Join(kd, "state"), []byte("on"), 0); err != nil {
					rerr = errors.Join(rerr, fmt.Errorf("bench: turn %s back on: %w", kd, err))
				}
			}
		})
		return rerr
	}
	for _, kd := range runningKdamonds(admin) {
		if err := os.WriteFile(filepath.Join(kd, "state"), []byte("off"), 0); err != nil {
			return func() error { return nil }, errors.Join(fmt.Errorf("bench: turn %s off: %w", kd, err), resume())
		}
		paused = append(paused, kd)
	}
	if len(paused) > 0 {
		// A signal the process was started ignoring (SIGINT in a background job) stays
		// ignored: caught here, it would end the pause but not the run.
		for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
			if !signal.Ignored(s) {
				signal.Notify(sigs, s)
			}
		}
		go func() {
			if s, ok := <-sigs; ok {
				resume()
				syscall.Kill(os.Getpid(), s.(syscall.Signal))
			}
		}()
	}
	return resume, nil
}
