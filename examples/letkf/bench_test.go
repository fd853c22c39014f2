package letkf_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

// epochTimes are one epoch's times from the statistics: one cycle, one kind
// of file (both members' files together, as they run at once) and one
// session. Each is the largest over the ranks of the role named.
//
// What the statistics can separate, per rank:
//   - a reader's wait for its schedules, sched_ns + wait_ns (readMatch
//     below), runs from the start of its read round (its wait_all) until its
//     schedule is confirmed: signature, replay lookup, requests to the
//     matchers, then either every writer's replay verdict (all replay: the
//     matchers stay silent) or every matcher's answer (matching, or the
//     record), less the time spent posting receives (data movement, in
//     transfer_ns). Replaying writers push their data at their epoch end, so
//     MPI may copy some of it into the recorded receives while the reader
//     waits for the last verdict; that copying stays in sched_ns.
//   - a reader's wait_ns is the part of that wait spent on writers that had
//     not reached their own epoch end: per round, from the round's start
//     until the latest writer reached it (wall clock, exact on one node), 0
//     when the writers were there first. sched_ns is the rest: the message
//     hops after both sides were ready, and the work at either end.
//   - a reader's transfer_ns is posting the receives (the MPI_Irecv calls
//     any exchange makes; on replay, before the schedules are confirmed)
//     and waiting until all of them completed: the only stretch the
//     statistics attribute to data movement. It also holds waiting for a
//     writer that is slow to send, which they cannot tell apart from wire
//     time.
//   - a writer's transfer_ns is its whole end of epoch: agreement,
//     requests, serving schedules, sends and waiting for every reader to be
//     done. Coordination and data are mixed in it, so it is only logged.
//   - a matcher's match_ns is the time of its steps that matched reader
//     rounds (none when replay served the epoch).
//
// The epoch span (earliest start to latest end over every rank of both
// roles, where a rank's epoch starts at its open or at the end of its
// previous epoch) also holds user-side work: defining the file, the put and
// get calls copying into buffers, and waiting for the other component to
// reach the file; in the analysis file's second session it holds da's whole
// update while sim waits to read it.
type epochTimes struct {
	span      time.Duration
	readMatch time.Duration // readers' sched_ns + wait_ns: the whole wait for the schedules
	readWait  time.Duration // readers' wait_ns: the part of it spent waiting for the writers
	readXfer  time.Duration // readers' transfer_ns
	writeXfer time.Duration // writers' transfer_ns
	matcher   time.Duration // matchers' match_ns
}

// benchKey names an epoch across members.
type benchKey struct {
	cycle   int
	kind    string
	session int
}

// perEpoch gathers the statistics records by cycle, kind and session.
func perEpoch(recs []stats.Record) map[benchKey]epochTimes {
	out := map[benchKey]epochTimes{}
	first, last := map[benchKey]time.Time{}, map[benchKey]time.Time{}
	for _, r := range recs {
		m := pathRE.FindStringSubmatch(r.File)
		if m == nil {
			continue
		}
		c, _ := strconv.Atoi(m[2])
		k := benchKey{c, m[3], r.Session}
		t := out[k]
		if r.Role == "reader" {
			t.readMatch = max(t.readMatch, r.SchedTime+r.WaitTime) // the reader's whole wait for its schedules
			t.readWait = max(t.readWait, r.WaitTime)
			t.readXfer = max(t.readXfer, r.TransferTime)
		} else {
			t.writeXfer = max(t.writeXfer, r.TransferTime)
			t.matcher = max(t.matcher, r.MatchTime)
		}
		if f, ok := first[k]; !ok || r.Start.Before(f) {
			first[k] = r.Start
		}
		if r.End.After(last[k]) {
			last[k] = r.End
		}
		t.span = last[k].Sub(first[k])
		out[k] = t
	}
	return out
}

// cycleSums adds up the epochs of cycle c.
func cycleSums(eps map[benchKey]epochTimes, c int) epochTimes {
	var s epochTimes
	for k, t := range eps {
		if k.cycle != c {
			continue
		}
		s.span += t.span
		s.readMatch += t.readMatch
		s.readWait += t.readWait
		s.readXfer += t.readXfer
		s.writeXfer += t.writeXfer
		s.matcher += t.matcher
	}
	return s
}

// benchSize is the ensemble of BenchmarkReplay: 400 variables of 4x4x4 blocks,
// so that the requests to exchange and match (ranks x variables) weigh
// against the bytes to move, over 30 cycles, so that the medians hold still
// on a crowded node. LETKF_BENCH="nvars imax jmax kmax cycles" overrides it.
func benchSize(b *testing.B) (nvars, imax, jmax, kmax, cycles int) {
	nvars, imax, jmax, kmax, cycles = 400, 4, 4, 4, 30
	if s := os.Getenv("LETKF_BENCH"); s != "" {
		if _, err := fmt.Sscan(s, &nvars, &imax, &jmax, &kmax, &cycles); err != nil {
			b.Fatalf("LETKF_BENCH=%q: want \"nvars imax jmax kmax cycles\": %v", s, err)
		}
	}
	return
}

// BenchmarkReplay runs the example with replay on and then off in one run
// (4 sim ranks in 2 members of 2x1, 4 da ranks) and reports, over cycles
// 1..N (cycle 0 records the schedules, so it is left out of both), the
// median over those cycles of:
//
//	on-ms/cycle, off-ms/cycle  sim rank 0's cycle wall time
//	on/off                     their ratio (target <= 0.7)
//	on-outside-xfer-%          share of the replay-on epoch spans outside
//	                           data movement: 1 - sum(readers' transfer_ns)
//	                           / sum(epoch span) over the cycle's epochs;
//	                           it includes user-side work and waiting for
//	                           the other component
//	on-coord-%                 coordination with replay on, as a share of
//	                           sim's cycle time (target < 5%): over the
//	                           cycle's epochs, the sum of the readers'
//	                           sched_ns + wait_ns less the sum of their
//	                           wait_ns (each the slowest reader rank's),
//	                           about the readers' sched_ns: the time from a
//	                           read round's start to having every schedule,
//	                           without the time the round sat at the matchers
//	                           waiting for the writers to reach the epoch end
//	                           (see epochTimes)
//	on-wait-%                  that waiting share, the sum of the readers'
//	                           wait_ns over sim's cycle time: the other
//	                           component being later, not coordination cost
//	off-coord-%, off-wait-%    the same with replay off, for comparison
//
// Run it with
//
//	go test -run NONE -bench Replay -benchtime 1x ./examples/letkf/
func BenchmarkReplay(b *testing.B) {
	nvars, imax, jmax, kmax, cycles := benchSize(b)
	base := launch{nsim: 4, nda: 4, members: 2, cycles: cycles + 1, timeout: 3 * time.Minute,
		simArgs: []string{"-nvars", strconv.Itoa(nvars), "-imax", strconv.Itoa(imax), "-jmax", strconv.Itoa(jmax),
			"-kmax", strconv.Itoa(kmax), "-prc", "2x1"}}
	// summary holds per-cycle values of cycles 1..N: sim's cycle time (ms),
	// the share outside data movement and the coordination share.
	type summary struct{ cycle, outside, coord, wait []float64 }
	res := map[string]summary{}
	var sums []map[string]string
	for i := 0; i < b.N; i++ {
		sums = sums[:0]
		for _, mode := range []struct{ name, replayIO string }{{"on", "1"}, {"off", "0"}} {
			l := base
			l.replayIO = mode.replayIO
			r := l.run(b)
			sums = append(sums, r.sums)
			eps := perEpoch(r.recs)
			rows := []string{"cycle   sim ms  (I/O ms)   span ms  rd-match  (rd-wait)  rd-xfer  wr-xfer  matcher   [ms, per cycle: epochs summed, slowest rank each]"}
			var s summary
			for c := 0; c <= cycles; c++ {
				t := cycleSums(eps, c)
				rows = append(rows, fmt.Sprintf("%5d %8.1f (%7.1f) %9.1f %9.1f (%8.1f) %8.1f %8.1f %8.1f",
					c, r.simMS[c], r.simIO[c], ms(t.span), ms(t.readMatch), ms(t.readWait), ms(t.readXfer), ms(t.writeXfer), ms(t.matcher)))
				if c > 0 {
					s.cycle = append(s.cycle, r.simMS[c])
					s.outside = append(s.outside, 100*(1-ms(t.readXfer)/ms(t.span)))
					s.coord = append(s.coord, 100*ms(t.readMatch-t.readWait)/r.simMS[c])
					s.wait = append(s.wait, 100*ms(t.readWait)/r.simMS[c])
				}
			}
			res[mode.name] = s
			var erows []string
			for _, k := range []benchKey{{cycles, "hist", 0}, {cycles, "anal", 0}, {cycles, "anal", 1}} {
				t := eps[k]
				erows = append(erows, fmt.Sprintf("cycle %d %s session %d: span %.1f, reader match %.1f (waiting for writers %.1f), reader transfer %.1f, writer transfer %.1f, matcher %.1f ms",
					k.cycle, k.kind, k.session, ms(t.span), ms(t.readMatch), ms(t.readWait), ms(t.readXfer), ms(t.writeXfer), ms(t.matcher)))
			}
			rows = append(rows, erows...)
			b.Logf("replay %s, %d variables of %dx%dx%d per rank:\n%s", mode.name, nvars, kmax, jmax, imax, strings.Join(rows, "\n"))
		}
		// Replay must not change what was delivered.
		for k, v := range sums[0] {
			if sums[1][k] != v {
				b.Fatalf("%s: checksum %s with replay on, %s with replay off", k, v, sums[1][k])
			}
		}
	}
	// Medians, not means: other processes share the two cores, and one
	// descheduled rank can stretch a cycle tenfold.
	on, off := res["on"], res["off"]
	onMS, offMS := median(on.cycle), median(off.cycle)
	b.ReportMetric(onMS, "on-ms/cycle")
	b.ReportMetric(offMS, "off-ms/cycle")
	b.ReportMetric(onMS/offMS, "on/off")
	b.ReportMetric(median(on.outside), "on-outside-xfer-%")
	b.ReportMetric(median(on.coord), "on-coord-%")
	b.ReportMetric(median(on.wait), "on-wait-%")
	b.ReportMetric(median(off.coord), "off-coord-%")
	b.ReportMetric(median(off.wait), "off-wait-%")
}

// median returns the median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
