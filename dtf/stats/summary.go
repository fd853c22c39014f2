package stats

import (
	"cmp"
	"slices"
	"time"
)

// Summary aggregates the records of all ranks for one file and epoch. Each
// time is the slowest rank's: the epoch takes as long as its slowest rank.
type Summary struct {
	File             string
	Section, Session int
	Epoch            int
	Writers, Readers int   // records per role
	Bytes            int64 // bytes moved: the readers' total, or the writers' if no reader reported
	Requests         int64 // requests of all ranks
	Msgs             int64 // messages sent by all ranks

	Match    time.Duration // slowest matcher's matching work; zero when replay skipped matching
	Sched    time.Duration // slowest reader's wait for schedules beyond the wait for the writers
	Wait     time.Duration // longest reader wait for the writers to reach the epoch end
	Transfer time.Duration // slowest reader's transfer time, or the writers' epoch end if no reader reported

	Hits, Misses int       // records with replay hit and miss
	Errors       int       // records carrying an error
	Start, End   time.Time // earliest start, latest end
}

// Throughput is Bytes per second of Transfer, or 0 without a transfer time.
func (s Summary) Throughput() float64 {
	if s.Transfer <= 0 {
		return 0
	}
	return float64(s.Bytes) / s.Transfer.Seconds()
}

// GBps is Throughput in SI gigabytes (10^9 bytes) per second.
func (s Summary) GBps() float64 { return s.Throughput() / 1e9 }

// Replay sums up the epoch's replay outcome: "hit" if every record hit,
// "miss" if any missed, "off" if none replayed, else "partial".
func (s Summary) Replay() string {
	n := s.Writers + s.Readers
	switch {
	case s.Misses > 0:
		return string(Miss)
	case s.Hits == 0:
		return string(Off)
	case s.Hits == n:
		return string(Hit)
	}
	return "partial"
}

// Summarize groups records by file, section, session and epoch, ordered by the
// earliest start time (then file, session, epoch). The order is the one every
// view of a run shares: the table's rows and the plots' x axis.
func Summarize(recs []Record) []Summary {
	type key struct {
		file                    string
		section, session, epoch int
	}
	type acc struct {
		Summary
		writerBytes    int64
		writerTransfer time.Duration
	}
	idx := map[key]int{}
	var all []acc
	for _, r := range recs {
		k := key{r.File, r.Section, r.Session, r.Epoch}
		i, ok := idx[k]
		if !ok {
			i = len(all)
			idx[k] = i
			all = append(all, acc{Summary: Summary{File: r.File, Section: r.Section, Session: r.Session, Epoch: r.Epoch, Start: r.Start, End: r.End}})
		}
		a := &all[i]
		s := &a.Summary
		if r.Role == RoleReader {
			s.Readers++
			s.Bytes += r.Bytes
			s.Transfer = max(s.Transfer, r.TransferTime)
		} else {
			s.Writers++
			a.writerBytes += r.Bytes
			a.writerTransfer = max(a.writerTransfer, r.TransferTime)
		}
		s.Requests += r.Requests
		s.Msgs += r.MsgsSent
		s.Match = max(s.Match, r.MatchTime)
		s.Sched = max(s.Sched, r.SchedTime)
		s.Wait = max(s.Wait, r.WaitTime)
		switch r.Replay {
		case Hit:
			s.Hits++
		case Miss:
			s.Misses++
		}
		if r.Error != "" {
			s.Errors++
		}
		if !r.Start.IsZero() && (s.Start.IsZero() || r.Start.Before(s.Start)) {
			s.Start = r.Start
		}
		if r.End.After(s.End) {
			s.End = r.End
		}
	}
	out := make([]Summary, len(all))
	for i, a := range all {
		out[i] = a.Summary
		if a.Readers == 0 {
			out[i].Bytes, out[i].Transfer = a.writerBytes, a.writerTransfer
		}
	}
	slices.SortStableFunc(out, func(a, b Summary) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.File, b.File),
			cmp.Compare(a.Session, b.Session), cmp.Compare(a.Epoch, b.Epoch))
	})
	return out
}

// Total sums the epochs of a run: bytes, requests and messages add up, and so
// do the slowest ranks' times (epochs follow one another), so that the total's
// Throughput is the bytes over the summed transfer times.
func Total(sums []Summary) Summary {
	var t Summary
	for _, s := range sums {
		t.Writers += s.Writers
		t.Readers += s.Readers
		t.Bytes += s.Bytes
		t.Requests += s.Requests
		t.Msgs += s.Msgs
		t.Match += s.Match
		t.Sched += s.Sched
		t.Wait += s.Wait
		t.Transfer += s.Transfer
		t.Hits += s.Hits
		t.Misses += s.Misses
		t.Errors += s.Errors
	}
	return t
}
