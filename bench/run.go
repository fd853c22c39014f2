package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// Options choose what a run measures.
type Options struct {
	Cases       []int   // case numbers to run (CaseArray, CaseMatching); others are listed
	ExchangeMiB []int64 // case-1 array sizes in MiB (even, 4 or more)
	Reps        int     // timed repetitions per measurement (>= 5 for reported numbers)
	// Launches is how many separate launches measure each throughput
	// point of cases 1, 4 and 6 (at least 3 for reported numbers).
	Launches int
	// BigReps, when > 0, is the number of rounds of case-1 and case-6a
	// sizes of BigMiB MiB and more; else they run Reps, but at least
	// minBigRounds (repsFor).
	BigReps    int
	BigMiB     int64
	MatchSides []int64        // case-2 problem sides n (n^3 write and n^3 read boxes)
	Matchers   []int          // case-2 matcher counts
	Replay     ReplayWorkload // case-3 workload
	StageMiB   []int64        // case-4/6b file sizes in MiB
	// StageBigReps, when > 0, replaces Reps for staging sizes of at least
	// StageBigMiB MiB.
	StageBigReps   int
	StageBigMiB    int64
	LocatorLookups int      // case-5 lookups per level per repetition
	InterceptIters int      // case-7 open+close pairs per run
	UCXMiB         []int64  // case-6a array sizes in MiB
	MemcpyBytes    int64    // size of the memcpy measurement
	MCA            []string // extra OMPI_MCA_KEY=VALUE settings for every case-1 launch
	Timeout        time.Duration
	// KeepDAMON measures with DAMON's running monitors left on; otherwise Run turns
	// them off for its measurements (where it may: as root) and back on at its end.
	KeepDAMON bool
	// KeepPageReporting measures with free page reporting as the kernel has it;
	// otherwise Run has it wait a minute before it hands freed memory to the VM's
	// host (where it may) and restores it at its end.
	KeepPageReporting bool
	Quick             bool
	Command           string               // recorded as the way to reproduce the run
	Progress          func(string, ...any) // progress lines; nil = silent
}

// DefaultOptions returns the full run of `make bench` (about 20 minutes
// on 2 cores) or, with quick, a run of about a minute.
func DefaultOptions(quick bool) Options {
	o := Options{
		Cases:          slices.Clone(AllCases),
		ExchangeMiB:    []int64{64, 256, 1024},
		Reps:           5,
		Launches:       3,
		MatchSides:     []int64{10, 22, 46, 100},
		Matchers:       []int{1, 2, 4, 8},
		Replay:         ReplayWorkload{Cycles: 8, NVars: 32, NZ: 16, NY: 64, NX: 64, WBlocks: 4},
		StageMiB:       []int64{1, 16, 256, 1024},
		LocatorLookups: 200,
		InterceptIters: 200000,
		UCXMiB:         []int64{64, 256, 1024},
		MemcpyBytes:    256 << 20,
		Timeout:        10 * time.Minute,
		Command:        "make bench",
	}
	if quick {
		o.Quick = true
		o.ExchangeMiB = []int64{64}
		o.MatchSides = []int64{10, 22, 46}
		o.Replay.Cycles = 6
		o.StageMiB = []int64{1, 16}
		o.LocatorLookups = 100
		o.InterceptIters = 50000
		o.UCXMiB = []int64{64}
		o.Command = "go run ./cmd/couplet bench -quick"
	}
	return o
}

// repsFor is the number of timed repetitions of an array exchange (cases 1 and 6a) at
// mib MiB in a run whose largest size is top: from BigMiB up BigReps if set, else Reps
// but at least minBigRounds; below that Reps, and below top as many more as make the
// point move the bytes of Reps rounds of top. A round at 64 MiB takes about 15 ms, which
// a few thread wake-ups on a busy 2-core machine move by a tenth: couplet / raw MPI at
// 256 MiB took medians of 7 rounds from 0.83 to 1.11 within six launches whose medians
// of 28 rounds read 0.96 to 1.00.
func (o Options) repsFor(mib, top int64) int {
	if o.BigMiB > 0 && mib >= o.BigMiB {
		if o.BigReps > 0 {
			return o.BigReps
		}
		return max(o.Reps, minBigRounds)
	}
	return moreRounds(o.Reps, mib, top)
}

// minBigRounds is the fewest rounds a launch times at BigMiB and more unless BigReps
// says otherwise. At 1 GiB the rounds of every way fall apart into fast and slow ones
// (raw MPI 148-298 ms in one launch of 14 rounds on the 2-core VM of
// docs/PERFORMANCE.md, 110 against 140-180 ms in others), so the median of 7 is the
// luck of the draw: couplet / raw MPI at 1 GiB read 0.90 and 0.76 in two full runs two
// hours apart whose 64 MiB points agreed within 0.01 (with 14 rounds, 0.77 in the next).
const minBigRounds = 14

// stageRepsFor is the number of timed repetitions of staging at mib MiB: Reps
// (StageBigReps from StageBigMiB up), and below smallStageMiB as many more as make the
// point move the bytes of Reps stagings of smallStageMiB.
func (o Options) stageRepsFor(mib int64) int {
	if o.StageBigReps > 0 && o.StageBigMiB > 0 && mib >= o.StageBigMiB {
		return o.StageBigReps
	}
	return moreRounds(o.Reps, mib, smallStageMiB)
}

// moreRounds is the number of rounds of mib MiB that move the bytes of reps rounds of
// ref MiB (rounded up), and reps from ref up.
func moreRounds(reps int, mib, ref int64) int {
	if mib > 0 && mib < ref {
		return reps * int((ref+mib-1)/mib)
	}
	return reps
}

// smallStageMiB is the file size below which a staging point runs more rounds
// (stageRepsFor). A staging of 1 MiB takes 1-2 ms, and one of 16 MiB 5-8, in which a few
// thread wake-ups (60-300 us each on the 2-core VM of docs/PERFORMANCE.md) move it by
// tens of percent: with 7 rounds a launch, rpc / raw TCP at 1 MiB read 0.68-1.03 in six
// runs of 3 launches, with 60 rounds 0.84-1.07 in four; ucx DTL / rpc at 16 MiB read
// 0.46-1.20 in six launches of 7 rounds, and 0.82-0.99 in six of 28.
const smallStageMiB = 64

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
	o.Launches = max(o.Launches, 1)
	start := time.Now()
	r := &Results{Command: o.Command, Quick: o.Quick, Machine: DetectMachine(append(slices.Clone(o.MCA), launchEnv...)), MemcpyBytes: o.MemcpyBytes, LoadStart: loadAvg()}
	if len(r.Machine.DAMON) > 0 && !o.KeepDAMON {
		// Its sampling makes random rounds slow (see the report's Machine table).
		resume, err := pauseDAMON(damonAdmin)
		if err != nil {
			o.progress("DAMON stays on during the measurements: %v", err)
		} else {
			r.Machine.DAMONPaused = true
			o.progress("DAMON paused for the measurements (kdamond off; back on at the end, or on SIGINT/SIGTERM)")
			defer func() {
				if err := resume(); err != nil {
					o.progress("%v", err)
				}
			}()
		}
	}
	if r.Machine.PageReporting && !o.KeepPageReporting {
		// Memory handed back at once is faulted in afresh by the next round (see
		// reportAfter).
		restore, change, err := deferPageReporting(pageReportingParams)
		switch {
		case err != nil:
			o.progress("free page reporting stays as it is during the measurements: %v", err)
		case change != "":
			r.Machine.PageReportingDeferred = change
			o.progress("free page reporting deferred for the measurements (%s; restored at the end, or on SIGINT/SIGTERM)", change)
			defer func() {
				if err := restore(); err != nil {
					o.progress("%v", err)
				}
			}()
		}
	}
	has := func(id int) bool { return slices.Contains(o.Cases, id) }
	steps := 1
	if has(CaseArray) || has(CaseUCX) {
		steps++ // build
	}
	if has(CaseArray) {
		steps += len(o.ExchangeMiB) * o.Launches
	}
	if has(CaseReplay) {
		steps += 2
	}
	if has(CaseStaging) || has(CaseUCX) {
		steps += o.Launches * (1 + len(o.StageMiB))
	} else if has(CaseLocator) {
		steps++
	}
	if has(CaseLocator) {
		steps++
	}
	if has(CaseIntercept) {
		steps++
	}
	if has(CaseUCX) {
		steps += len(o.UCXMiB) * o.Launches
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
	memcpy, err := MeasureMemcpy(o.MemcpyBytes, max(o.Reps, 5))
	if err != nil {
		return nil, err
	}
	r.Memcpy = memcpy.Scale(1e-9)
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

	dir, err := os.MkdirTemp("", "couplet-bench-bin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var bin string
	if has(CaseArray) || has(CaseUCX) {
		next("building %s", ExchangeProg)
		if bin, err = BuildProgram(ExchangeProg, dir); err != nil {
			return nil, err
		}
	}
	if has(CaseArray) {
		// Launches outside, sizes inside: the launches of one size are
		// spread over the run rather than back to back.
		byMiB := map[int64][]ExchangePoint{}
		for l := range o.Launches {
			for _, mib := range o.ExchangeMiB {
				reps := o.repsFor(mib, slices.Max(o.ExchangeMiB))
				next("case 1: %d MiB, %d writers -> %d readers, %d reps per system, launch %d of %d", mib, Writers, Readers, reps, l+1, o.Launches)
				p, err := RunExchange(bin, mib, reps, o.MCA, o.Timeout)
				if err != nil {
					return nil, err
				}
				o.progress("        MPI %s | couplet %s | replay on %s | single copy %s | files %s GB/s | couplet/MPI %.2f, replay on/MPI %.2f, single copy/MPI %.2f, couplet/files %.2f",
					p.GBps[ModeMPI].Format("%.2f"), p.GBps[ModeCoupled].Format("%.2f"), p.GBps[ModeReplay].Format("%.2f"), p.GBps[ModeSingle].Format("%.2f"),
					p.GBps[ModeFile].Format("%.2f"), p.CoupledVsMPI, p.ReplayVsMPI, p.SingleVsMPI, p.CoupledVsFile)
				byMiB[mib] = append(byMiB[mib], p)
			}
		}
		for _, mib := range o.ExchangeMiB {
			r.Exchange = append(r.Exchange, mergeExchange(byMiB[mib]))
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
	if has(CaseReplay) {
		next("case 3: building %s", CyclesProg)
		cbin, err := BuildProgram(CyclesProg, dir)
		if err != nil {
			return nil, err
		}
		w := o.Replay
		next("case 3: replay on vs off, %d cycles each (the first records), %d variables of %dx%dx%d", w.Cycles, w.NVars, w.NZ, w.NY, w.NX)
		if r.Replay, err = RunReplay(cbin, w, o.MCA, o.Timeout); err != nil {
			return nil, err
		}
		o.progress("        cycle on %s s, off %s s, off/on %.2f; hits %v misses %v", r.Replay.Seconds[ReplayOn].Format("%.4f"),
			r.Replay.Seconds[ReplayOff].Format("%.4f"), r.Replay.OffVsOn, r.Replay.Hits, r.Replay.Misses)
	}
	if has(CaseStaging) || has(CaseUCX) || has(CaseLocator) {
		if err := runStaging(o, r, next); err != nil {
			return nil, err
		}
	}
	if has(CaseIntercept) {
		next("case 7: open+close outside the managed directories, %d pairs, plain vs preloaded, %d reps", o.InterceptIters, o.Reps)
		if r.Intercept, err = MeasureIntercept(o.InterceptIters, o.Reps); err != nil {
			return nil, err
		}
		for _, p := range r.Intercept {
			o.progress("        %-8s plain %s ns, preloaded %s ns, overhead %s ns", p.Path, p.Plain.Format("%.0f"),
				p.Preload.Format("%.0f"), p.Overhead.Format("%.0f"))
		}
	}
	if has(CaseUCX) {
		byMiB := map[int64][]UCXExchangePoint{}
		for l := range o.Launches {
			for _, mib := range o.UCXMiB {
				reps := o.repsFor(mib, slices.Max(o.UCXMiB))
				next("case 6a: coupling over MPI vs over UCX (sm, tcp) across two launches, and raw MPI over tcp, %d MiB, %d reps, launch %d of %d", mib, reps, l+1, o.Launches)
				pts, err := RunUCXExchange(bin, []int64{mib}, reps, o.MCA, o.Timeout, o.Progress)
				if err != nil {
					return nil, err
				}
				byMiB[mib] = append(byMiB[mib], pts...)
			}
		}
		for _, mib := range o.UCXMiB {
			r.UCXExchange = append(r.UCXExchange, mergeUCXExchange(byMiB[mib]))
		}
	}
	r.LoadEnd = loadAvg()
	r.Seconds = time.Since(start).Seconds()
	r.Generated = time.Now().UTC().Format(time.RFC3339)
	return r, nil
}

// runStaging measures cases 4, 5 and 6b, each launch on a fresh set of
// agents.
func runStaging(o Options, r *Results, next func(string, ...any)) error {
	has := func(id int) bool { return slices.Contains(o.Cases, id) }
	byMiB := map[int64][]StagingPoint{}
	launches := o.Launches
	if !has(CaseStaging) && !has(CaseUCX) {
		launches = 1 // the locator alone
	}
	for l := range launches {
		next("cases 4-6: starting dyad agent pairs (rpc, with the hash also off; ucx sm; ucx tcp) with embedded etcd, launch %d of %d", l+1, launches)
		s, err := StartStaging()
		if err != nil {
			return err
		}
		if has(CaseStaging) || has(CaseUCX) {
			for _, mib := range o.StageMiB {
				reps := o.stageRepsFor(mib)
				next("cases 4/6b: staging %d MiB, %d reps per system, launch %d of %d", mib, reps, l+1, o.Launches)
				p, err := s.Measure(mib, reps)
				if err != nil {
					s.Close()
					return err
				}
				o.progress("        rpc %s | rpc hash off %s | tcp %s | cp %s | ucx-sm %s | ucx-tcp %s GB/s | rpc/tcp %.2f | rpc %.2f ms | hash added/rpc %.3f (alone %.3f, left %.3f)",
					p.GBps[StageRPC].Format("%.2f"), p.GBps[StageRPCNoHash].Format("%.2f"), p.GBps[StageRawTCP].Format("%.2f"), p.GBps[StageCp].Format("%.2f"),
					p.GBps[StageUCXSM].Format("%.2f"), p.GBps[StageUCXTCP].Format("%.2f"), p.RPCvsTCP,
					p.Seconds[StageRPC].Median*1e3, p.HashAddedShare, p.HashShare, p.HashWaitShare)
				byMiB[mib] = append(byMiB[mib], p)
			}
		}
		if has(CaseLocator) && l == 0 { // latencies in process: one launch
			next("case 5: locator lookups, %d per level per rep, %d reps", o.LocatorLookups, o.Reps)
			if r.Locator, err = s.MeasureLocator(o.LocatorLookups, o.Reps); err != nil {
				s.Close()
				return err
			}
			for _, l := range r.Locator {
				o.progress("        %-5s median %s us", l.Level, l.Median.Format("%.1f"))
			}
		}
		s.Close()
	}
	if has(CaseStaging) || has(CaseUCX) {
		for _, mib := range o.StageMiB {
			r.Staging = append(r.Staging, mergeStaging(byMiB[mib]))
		}
	}
	return nil
}

// loadAvg returns the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
