package main

import (
	"fmt"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// barMinSize is the file size above which produce and consume draw a progress bar.
const barMinSize = 64 << 20

// termProgress returns the progress of the dyad commands: a bar on w for each file over
// barMinSize when w is a terminal, nothing otherwise (a log or a pipe gets no bar bytes).
func termProgress(w *os.File) dyad.Progress {
	if !term.IsTerminal(int(w.Fd())) {
		return nil
	}
	return func(op, upath string, total int64) dyad.Step {
		if total <= barMinSize {
			return nil
		}
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(op+" "+upath),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowTotalBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionUseIECUnits(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
		return &barStep{bar: bar, total: total}
	}
}

// barStep draws one step of a dyad command as a bar.
type barStep struct {
	bar   *progressbar.ProgressBar
	total int64
}

// Update moves the bar, short of full: the step is complete only when End says so
// (a produce still waits for its agent after the last byte is read).
func (s *barStep) Update(done int64) { s.bar.Set64(min(done, s.total-1)) }

// End fills the bar after a success, and leaves it where it stopped after a failure;
// either way the line ends, so that what follows starts on a line of its own.
func (s *barStep) End(err error) {
	if err == nil {
		s.bar.Finish()
		return
	}
	s.bar.Exit()
}
