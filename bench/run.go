package bench

import (
	"fmt"
	"os"
	"slices"
	"time"
)

// Options choose what a run measures.
type Options struct {
	Cases       []int   // case numbers to run (CaseArray, CaseMatching); others are listed
	ExchangeMiB []int64 // case-1 array sizes in MiB (even, 4 or more)
	Reps        int     // timed repetitions per measurement (>= 5 for reported numbers)
	// BigReps, when > 0, replaces Reps for case-1 sizes of BigMiB MiB and
	// more, to keep the full run within its time budget.
	BigReps     int
	BigMiB      int64
	MatchSides  []int64  // case-2 problem sides n (n^3 write and n^3 read boxes)
	Matchers    []int    // case-2 matcher counts
	MemcpyBytes int64    // size of the memcpy measurement
	MCA         []string // extra OMPI_MCA_KEY=VALUE settings for every case-1 launch
	Timeout     time.Duration
	Quick       bool
	Command     string               // recorded as the way to reproduce the run
	Progress    func(string, ...any) // progress lines; nil = silent
}

// DefaultOptions returns the full run of `make bench` (well under 15 minutes
// on 2 cores) or, with quick, a run of about a minute.
func DefaultOptions(quick bool) Options {
	o := Options{
		Cases:       []int{CaseArray, CaseMatching},
		ExchangeMiB: []int64{64, 256, 1024},
		Reps:        5,
		MatchSides:  []int64{10, 22, 46, 100},
		Matchers:    []int{1, 2, 4, 8},
		MemcpyBytes: 256 << 20,
		Timeout:     10 * time.Minute,
		Command:     "make bench",
	}
	if quick {
		o.Quick = true
		o.ExchangeMiB = []int64{64}
		o.MatchSides = []int64{10, 22, 46}
		o.Command = "go run ./cmd/couplet bench -quick"
	}
	return o
}

// repsFor is the number of timed repetitions of case 1 at mib MiB.
func (o Options) repsFor(mib int64) int {
	if o.BigReps > 0 && o.BigMiB > 0 && mib >= o.BigMiB {
		return o.BigReps
	}
	return o.Reps
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(format, args...)
	}
}

// Run measures the selected cases and returns every number. A failing
// measurement ends the run with its error: no case is reported half-measured.
func Run(o Options) (*Results, error) {
	if o.Reps < 1 {
		return nil, fmt.Errorf("bench: %d repetitions", o.Reps)
	}
	start := time.Now()
	r := &Results{Command: o.Command, Quick: o.Quick, Machine: DetectMachine(o.MCA), MemcpyBytes: o.MemcpyBytes}
	steps := 1
	if slices.Contains(o.Cases, CaseArray) {
		steps += 1 + len(o.ExchangeMiB)
	}
	if slices.Contains(o.Cases, CaseMatching) {
		steps += len(o.MatchSides) * len(o.Matchers)
	}
	step := 0
	next := func(format string, args ...any) {
		step++
		o.progress("[%2d/%d %6.1fs] "+format, append([]any{step, steps, time.Since(start).Seconds()}, args...)...)
	}

	next("memcpy bandwidth, %d MiB x %d", o.MemcpyBytes>>20, max(o.Reps, 5))
	r.Memcpy = MeasureMemcpy(o.MemcpyBytes, max(o.Reps, 5)).Scale(1e-9)
	o.progress("        memcpy %s GB/s", r.Memcpy.Format("%.2f"))

	for _, id := range AllCases {
		cs := CaseStatus{ID: id, Title: caseTitles[id], Status: "measured"}
		if why, missing := missingReason[id]; missing {
			cs.Status, cs.Note = "missing", why
		} else if !slices.Contains(o.Cases, id) {
			cs.Status, cs.Note = "skipped", "not selected in this run (-cases)"
		}
		r.Cases = append(r.Cases, cs)
	}

	if slices.Contains(o.Cases, CaseArray) {
		next("case 1: building %s", ExchangeProg)
		dir, err := os.MkdirTemp("", "couplet-bench-bin-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		bin, err := BuildProgram(ExchangeProg, dir)
		if err != nil {
			return nil, err
		}
		for _, mib := range o.ExchangeMiB {
			reps := o.repsFor(mib)
			next("case 1: %d MiB, %d writers -> %d readers, %d reps per system", mib, Writers, Readers, reps)
			p, err := RunExchange(bin, mib, reps, o.MCA, o.Timeout)
			if err != nil {
				return nil, err
			}
			o.progress("        MPI %s | couplet %s | files %s GB/s | couplet/MPI %.2f, couplet/files %.2f",
				p.GBps[ModeMPI].Format("%.2f"), p.GBps[ModeCoupled].Format("%.2f"), p.GBps[ModeFile].Format("%.2f"),
				p.CoupledVsMPI, p.CoupledVsFile)
			r.Exchange = append(r.Exchange, p)
		}
	}
	if slices.Contains(o.Cases, CaseMatching) {
		for _, n := range o.MatchSides {
			for _, m := range o.Matchers {
				next("case 2: %d boxes, %d matchers, %d reps", n*n*n, m, o.Reps)
				p, err := MeasureMatching(n, m, o.Reps)
				if err != nil {
					return nil, err
				}
				o.progress("        critical path %s s, %d transfers", p.Critical.Format("%.4f"), p.Transfers)
				r.Matching = append(r.Matching, p)
			}
		}
	}
	r.Seconds = time.Since(start).Seconds()
	r.Generated = time.Now().UTC().Format(time.RFC3339)
	return r, nil
}
