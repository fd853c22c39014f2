package letkf_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf"
)

// cycleTimes are one cycle's times from the statistics, each the sum over
// the cycle's epochs (history, first guess, analysis) of the slowest rank.
type cycleTimes struct {
	span     time.Duration // earliest epoch start to latest epoch end, over all ranks
	match    time.Duration // match_ns: matching, or waiting for schedules
	transfer time.Duration // transfer_ns: data movement after matching
}

// perCycle sums the statistics records by cycle.
func perCycle(recs []dtf.EpochStats) map[int]cycleTimes {
	type ep struct {
		cycle   int
		kind    string
		session int
	}
	match, xfer := map[ep]time.Duration{}, map[ep]time.Duration{}
	first, last := map[int]time.Time{}, map[int]time.Time{}
	for _, r := range recs {
		m := pathRE.FindStringSubmatch(r.File)
		if m == nil {
			continue
		}
		var c int
		fmt.Sscanf(m[2], "%d", &c)
		k := ep{c, m[3], r.Session}
		match[k] = max(match[k], r.MatchTime)
		xfer[k] = max(xfer[k], r.TransferTime)
		if f, ok := first[c]; !ok || r.Start.Before(f) {
			first[c] = r.Start
		}
		if r.End.After(last[c]) {
			last[c] = r.End
		}
	}
	out := map[int]cycleTimes{}
	for k := range match {
		t := out[k.cycle]
		t.match += match[k]
		t.transfer += xfer[k]
		t.span = last[k.cycle].Sub(first[k.cycle])
		out[k.cycle] = t
	}
	return out
}

// BenchmarkReplay runs the example with many variables, replay on and off
// side by side, and reports the mean over cycles 1..N-1 (cycle 0 records) of
// sim's cycle time and of the statistics' epoch times:
//
//	go test -run NONE -bench Replay -benchtime 1x ./examples/letkf/
func BenchmarkReplay(b *testing.B) {
	const cycles = 6
	base := launch{nsim: 4, nda: 4, members: 2, cycles: cycles,
		simArgs: []string{"-nvars", "60", "-imax", "32", "-jmax", "20", "-kmax", "16", "-prc", "2x1"}}
	for _, mode := range []struct{ name, replayIO string }{{"on", "1"}, {"off", "0"}} {
		b.Run(mode.name, func(b *testing.B) {
			l := base
			l.replayIO = mode.replayIO
			var r result
			for i := 0; i < b.N; i++ {
				r = l.run(b)
			}
			times := perCycle(r.recs)
			var rows []string
			var sim, io float64
			var sum cycleTimes
			for c := 0; c < cycles; c++ {
				t := times[c]
				rows = append(rows, fmt.Sprintf("cycle %d: sim %6.1f ms (coupled I/O %6.1f ms), epochs span %6.1f ms, match %6.1f ms, transfer %6.1f ms",
					c, r.simMS[c], r.simIO[c], ms(t.span), ms(t.match), ms(t.transfer)))
				if c > 0 {
					sim += r.simMS[c]
					io += r.simIO[c]
					sum.span += t.span
					sum.match += t.match
					sum.transfer += t.transfer
				}
			}
			b.Logf("replay %s:\n%s", mode.name, strings.Join(rows, "\n"))
			n := float64(cycles - 1)
			b.ReportMetric(sim/n, "sim-ms/cycle")
			b.ReportMetric(io/n, "sim-io-ms/cycle")
			b.ReportMetric(ms(sum.span)/n, "span-ms/cycle")
			b.ReportMetric(ms(sum.match)/n, "match-ms/cycle")
			b.ReportMetric(ms(sum.transfer)/n, "transfer-ms/cycle")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
