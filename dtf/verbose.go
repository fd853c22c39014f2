package dtf

import (
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

// verboseOut is where start-up and finalize reports go (DTF printed to stdout; couplet
// keeps stdout for the program).
var verboseOut io.Writer = os.Stderr

// rankTotals sums one rank's epoch statistics for DTF_PRINT_STATS.
type rankTotals struct {
	epochs, requests, msgs int64
	bytes                  int64
	match, sched, wait     time.Duration
	transfer               time.Duration
	hits, misses           int
}

func (t *rankTotals) add(s *stats.Record) {
	t.epochs++
	t.requests += s.Requests
	t.msgs += s.MsgsSent
	t.bytes += s.Bytes
	t.match += s.MatchTime
	t.sched += s.SchedTime
	t.wait += s.WaitTime
	t.transfer += s.TransferTime
	switch s.Replay {
	case stats.Hit:
		t.hits++
	case stats.Miss:
		t.misses++
	}
}

// traceLevel is the DTF_VERBOSE_LEVEL from which every rank prints a line per control
// message it sends or receives and per matching it does (traceMsg, traceMatch).
const traceLevel = 2

// traceMsg prints, at traceLevel, one control message this rank sent to or got from
// rank peer at wall-clock time at. A send is stamped before the message goes out, so
// that no receiver's stamp can precede it.
func (e *engine) traceMsg(at time.Time, sent bool, peer int, m *envelope) {
	if !e.tracing() {
		return
	}
	what := "got %s from rank %d"
	if sent {
		what = "sent %s to rank %d"
	}
	e.trace(at, m, what, m.Kind, peer)
}

// traceMatch prints, at traceLevel, that this rank's matcher answered n read rounds
// of m's file in d.
func (e *engine) traceMatch(m *envelope, n int, d time.Duration) {
	if !e.tracing() {
		return
	}
	e.trace(time.Now(), m, "matched %d rounds in %v", n, d)
}

// stamp is the time for a trace line, read only when tracing: untraced runs do not
// read the clock twice per control message.
func (e *engine) stamp() time.Time {
	if !e.tracing() {
		return time.Time{}
	}
	return time.Now()
}

// tracing reports whether DTF_VERBOSE_LEVEL asks for the trace: checked before a
// line's arguments are boxed, which untraced runs need not pay for on every message.
func (e *engine) tracing() bool { return e.cfg.VerboseLevel >= traceLevel }

// trace prints one line about m's file and epoch stamped with at in Unix
// nanoseconds: the ranks of one node share that clock, so the lines of all ranks merge
// into one timeline of the protocol (which rank waited for which message, and how long
// a hop took).
func (e *engine) trace(at time.Time, m *envelope, format string, args ...any) {
	fmt.Fprintf(verboseOut, "couplet: trace %d rank %d %s: %s session %d epoch %d\n",
		at.UnixNano(), e.tr.Rank(), fmt.Sprintf(format, args...), m.Path, m.Session, m.Epoch)
}

// noteOpened remembers a path the program opened or created, coupled or not, for the
// finalize warning about [FILE] sections that matched nothing.
func (e *engine) noteOpened(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !slices.Contains(e.opened, path) {
		e.opened = append(e.opened, path)
	}
}

// reportStart prints the configuration, and what became of the runtime's
// monitor thread (lowerMonitor), on the component's rank 0 when
// DTF_VERBOSE_LEVEL is 1 or more.
func (e *engine) reportStart(monitor string) {
	if e.cfg.VerboseLevel < 1 || e.comm.Rank() != 0 {
		return
	}
	fmt.Fprintf(verboseOut, "couplet: component %s (%d ranks), Go runtime monitor %s\n", e.cfg.CompNames[e.comp], e.comm.Size(), monitor)
	e.cfg.WriteSummary(verboseOut)
}

// reportFinish prints, at Finalize, the [FILE] sections of this component that
// matched no file its rank 0 opened (DTF_VERBOSE_LEVEL >= 1), and this rank's
// statistics line (DTF_PRINT_STATS).
func (e *engine) reportFinish() {
	comp := e.cfg.CompNames[e.comp]
	if e.cfg.VerboseLevel >= 1 && e.comm.Rank() == 0 {
		e.cfg.WriteUnmatched(verboseOut, comp, e.opened)
	}
	if e.cfg.PrintStats {
		t := e.totals
		fmt.Fprintf(verboseOut, "couplet stats: %s rank %d: epochs %d, requests %d, bytes %d, messages %d, match %v, sched %v, wait %v, transfer %v, replay hits %d misses %d\n",
			comp, e.comm.Rank(), t.epochs, t.requests, t.bytes, t.msgs, t.match.Round(time.Microsecond), t.sched.Round(time.Microsecond),
			t.wait.Round(time.Microsecond), t.transfer.Round(time.Microsecond), t.hits, t.misses)
	}
}
