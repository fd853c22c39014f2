package dyad

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Progress observes the long steps of a client: Produce reading a file through its
// checksum, and Consume staging a file into the consumer managed directory. It is called
// when such a step starts on the file upath of total bytes (op is "produce" or
// "consume") and returns the step's observer, or nil to leave the step unobserved.
type Progress func(op, upath string, total int64) Step

// Step observes one step of a client. Update receives the bytes done so far, from one
// goroutine at a time, never decreasing; End is called once, with the step's outcome,
// after the last Update.
type Step interface {
	Update(done int64)
	End(err error)
}

// SetProgress makes the client report its long steps to p (nil: to nobody). Set it
// before the client is used.
func (c *Client) SetProgress(p Progress) { c.progress = p }

// beginStep starts observing a step, or returns nil when nobody observes it.
func (c *Client) beginStep(op, upath string, total int64) Step {
	if c.progress == nil {
		return nil
	}
	return c.progress(op, upath, total)
}

// TempPattern is the os.CreateTemp pattern of the temporary file a staging into dest
// writes before it is verified and renamed into place; a partial file is never named
// like dest itself.
func TempPattern(dest string) string { return TempPrefix + filepath.Base(dest) + "-*" }

// TempPrefix begins the name of every temporary file a staging fills.
const TempPrefix = ".couplet-tmp-"

// watchInterval is how often a staging's temporary file is looked at for progress.
const watchInterval = 100 * time.Millisecond

// watchStaging reports to s the size of the temporary file the agent stages dest into,
// on every tick, until the returned stop is called. Watching the file needs nothing from
// the agent, whatever the DTL.
func watchStaging(s Step, dest string) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(watchInterval)
		defer tick.Stop()
		// Only CreateTemp's random part, digits, may follow the prefix: the temporary
		// file of another name that merely starts alike is left out.
		dir, prefix := filepath.Dir(dest), strings.TrimSuffix(TempPattern(dest), "*")
		var last int64
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				rest, ok := strings.CutPrefix(e.Name(), prefix)
				if !ok || !allDigits(rest) {
					continue
				}
				if st, err := e.Info(); err == nil && st.Size() > last {
					last = st.Size()
					s.Update(last)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// stepWriter reports the bytes written through it to a step.
type stepWriter struct {
	n    int64
	step Step
}

func (w *stepWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.step.Update(w.n)
	return len(p), nil
}
