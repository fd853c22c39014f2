package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/couplet-hpc/couplet/bench"
)

var benchCmd = &cobra.Command{
	Use:   "bench [--quick] [--cases 1,2,3,4,5,6,7] [--sizes 64,256,1024] [--reps 5] [--launches 3] [--out docs]",
	Short: "measure couplet side by side with raw MPI, real files, TCP, cp and UCX; write docs/PERFORMANCE.md, plots and JSON",
	Long: `Bench runs the harness of bench/: each case against its baselines in the
same run. Throughput cases (1, 4, 6) run every point in several separate
launches (3 by default), each repeating its measurement (5 times by default)
after a warm-up; the report gives the median of the launch medians with the
spread across launches, and the Targets table reads from those. The
machine's memcpy bandwidth is the ceiling.

  case 1  array coupling: couplet vs raw MPI vs real PnetCDF files,
          3-D float64, 4 writers -> 2 readers (two MPMD mpiruns per launch:
          the in-memory ways, then the real files)
  case 2  matching scaling: 10^3..10^6 boxes, 1..8 matchers (in process)
  case 3  replay on vs off over cycles (one MPMD mpirun, both modes interleaved)
  case 4  file staging: dyad rpc DTL vs raw loopback TCP vs cp (fresh
          in-process agents per launch)
  case 5  locator lookups per level: local dir, agent cache, etcd
  case 6  UCX vs MPI: array coupling across two mpiruns over UCX (sm, tcp) vs
          one MPMD mpirun over MPI, and raw MPI over the tcp BTL; staging
          over the ucx DTL vs rpc
  case 7  open+close outside the managed directories, plain vs with
          libcouplet-dyad.so preloaded (CPU time per pair)

It writes OUT/PERFORMANCE.md, OUT/perf/*.png and OUT/perf/results.json.
With --render FILE it measures nothing and writes them from the results.json
of an earlier run (after a change to the report's layout, say).
Long flags also take a single dash (-cases 1,4,6 -reps 7).`,
	// Flags are parsed in runBench, after single-dash long flags are given
	// their second dash, so that both spellings work.
	DisableFlagParsing: true,
	RunE:               runBench,
}

// Bench flags, registered on benchCmd so that help lists them.
var (
	benchQuick        bool
	benchCases        string
	benchStageSizes   string
	benchStageBigReps int
	benchUCXSizes     string
	benchCycles       int
	benchSizes        string
	benchReps         int
	benchLaunches     int
	benchBigReps      int
	benchBigMiB       int64
	benchSides        string
	benchMatchers     string
	benchOut          string
	benchTimeout      time.Duration
	benchMCA          []string
	benchRender       string
	benchKeepDAMON    bool
	benchKeepReport   bool
)

func init() {
	root.AddCommand(benchCmd)
	f := benchCmd.Flags()
	f.BoolVar(&benchQuick, "quick", false, "a short run: cases 1 and 6a at 64 MiB, case 2 up to 10^5 boxes, staging at 1 and 16 MiB")
	f.StringVar(&benchCases, "cases", "", "cases to measure, e.g. 1,2 (default all)")
	f.StringVar(&benchStageSizes, "stage-sizes", "", "case-4/6b file sizes in MiB (default 1,16,256,1024; quick 1,16)")
	f.IntVar(&benchStageBigReps, "stage-big-reps", 0, "repetitions for staging sizes >= --big-mib (0 = same as --reps)")
	f.StringVar(&benchUCXSizes, "ucx-sizes", "", "case-6a array sizes in MiB, even (default 64,256,1024; quick 64)")
	f.IntVar(&benchCycles, "cycles", 0, "case-3 cycles per mode, the first recording (default 8; quick 6)")
	f.StringVar(&benchSizes, "sizes", "", "case-1 sizes in MiB, even, >= 4 (default 64,256,1024; quick 64)")
	f.IntVar(&benchReps, "reps", 5, "timed repetitions per measurement within one launch")
	f.IntVar(&benchLaunches, "launches", 3, "separate launches per throughput point of cases 1, 4 and 6")
	f.IntVar(&benchBigReps, "big-reps", 0, "repetitions for case-1 and case-6a sizes >= --big-mib (0 = --reps, at least 14: rounds there fall into fast and slow ones)")
	f.Int64Var(&benchBigMiB, "big-mib", 1024, "size from which --big-reps applies")
	f.StringVar(&benchSides, "match-sides", "", "case-2 problem sides n, n^3 boxes each (default 10,22,46,100; quick 10,22,46)")
	f.StringVar(&benchMatchers, "matchers", "", "case-2 matcher counts (default 1,2,4,8)")
	f.StringVar(&benchOut, "out", "docs", "directory for PERFORMANCE.md and perf/")
	f.DurationVar(&benchTimeout, "timeout", 10*time.Minute, "limit for each mpirun launch")
	f.StringArrayVar(&benchMCA, "mca", nil, "extra Open MPI setting KEY=VALUE for case 1, e.g. btl_vader_max_send_size=1048576 (repeatable)")
	f.BoolVar(&benchKeepReport, "keep-page-reporting", false, "measure with free page reporting as the kernel has it (by default a run as root has a VM's balloon hand freed memory back to the host only after a minute, and restores the setting at its end: memory handed back at once is faulted in afresh by the next round)")
	f.BoolVar(&benchKeepDAMON, "keep-damon", false, "measure with DAMON's running monitors on (by default a run as root turns each running kdamond off for its measurements and back on at its end: their sampling makes random rounds slow)")
	f.StringVar(&benchRender, "render", "", "measure nothing: write the report and plots from this results.json of an earlier run (only --out applies)")
}

// doubleDash gives single-dash long flags of fs their second dash
// ("-cases" -> "--cases"); other arguments are left as they are.
func doubleDash(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && fs.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

func runBench(cmd *cobra.Command, args []string) error {
	fs := cmd.Flags()
	if err := fs.Parse(doubleDash(fs, args)); err != nil {
		return err
	}
	if help, _ := fs.GetBool("help"); help {
		return cmd.Help()
	}
	quick, cases, stageSizes, stageBigReps, ucxSizes, cycles := &benchQuick, &benchCases, &benchStageSizes, &benchStageBigReps, &benchUCXSizes, &benchCycles
	sizes, reps, bigReps, bigMiB, sides, matchers, timeout := &benchSizes, &benchReps, &benchBigReps, &benchBigMiB, &benchSides, &benchMatchers, &benchTimeout
	var mca []string
	for _, v := range benchMCA {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("bench: --mca %q: want KEY=VALUE", v)
		}
		mca = append(mca, "OMPI_MCA_"+strings.TrimPrefix(k, "OMPI_MCA_")+"="+val)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected arguments %q", fs.Args())
	}
	if benchRender != "" {
		return renderBench(cmd, fs)
	}
	if benchLaunches < 1 {
		return fmt.Errorf("bench: --launches %d: want at least 1", benchLaunches)
	}
	o := bench.DefaultOptions(*quick)
	o.Reps, o.BigReps, o.BigMiB, o.Timeout, o.MCA = *reps, *bigReps, *bigMiB, *timeout, mca
	o.Launches = benchLaunches
	o.KeepDAMON = benchKeepDAMON
	o.KeepPageReporting = benchKeepReport
	o.StageBigReps, o.StageBigMiB = *stageBigReps, *bigMiB
	if *cycles > 0 {
		if *cycles < 2 {
			return fmt.Errorf("bench: -cycles %d: want at least 2 (the first records)", *cycles)
		}
		o.Replay.Cycles = *cycles
	}
	var err error
	if *stageSizes != "" {
		if o.StageMiB, err = parseInts[int64](*stageSizes); err != nil {
			return fmt.Errorf("bench: -stage-sizes: %w", err)
		}
	}
	if *ucxSizes != "" {
		if o.UCXMiB, err = parseInts[int64](*ucxSizes); err != nil {
			return fmt.Errorf("bench: -ucx-sizes: %w", err)
		}
		for _, s := range o.UCXMiB {
			if s < 4 || s%2 != 0 {
				return fmt.Errorf("bench: -ucx-sizes: %d MiB: want an even size of at least 4", s)
			}
		}
	}
	if *cases != "" {
		if o.Cases, err = parseInts[int](*cases); err != nil {
			return fmt.Errorf("bench: -cases: %w", err)
		}
		for _, c := range o.Cases {
			if c > len(bench.AllCases) {
				return fmt.Errorf("bench: -cases: no case %d (1 to %d)", c, len(bench.AllCases))
			}
		}
	}
	if *sizes != "" {
		if o.ExchangeMiB, err = parseInts[int64](*sizes); err != nil {
			return fmt.Errorf("bench: -sizes: %w", err)
		}
		for _, s := range o.ExchangeMiB {
			if s < 4 || s%2 != 0 {
				return fmt.Errorf("bench: -sizes: %d MiB: want an even size of at least 4", s)
			}
		}
	}
	if *sides != "" {
		if o.MatchSides, err = parseInts[int64](*sides); err != nil {
			return fmt.Errorf("bench: -match-sides: %w", err)
		}
	}
	if *matchers != "" {
		if o.Matchers, err = parseInts[int](*matchers); err != nil {
			return fmt.Errorf("bench: -matchers: %w", err)
		}
	}
	if o.Reps < 5 {
		fmt.Fprintf(cmd.ErrOrStderr(), "bench: warning: %d repetitions; reported numbers should use at least 5\n", o.Reps)
	}
	if o.Launches < 3 {
		fmt.Fprintf(cmd.ErrOrStderr(), "bench: warning: %d launches; reported numbers should use at least 3\n", o.Launches)
	}
	if len(args) > 0 {
		o.Command = "go run ./cmd/couplet bench " + strings.Join(args, " ")
	}
	w := cmd.ErrOrStderr()
	o.Progress = func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	res, err := bench.Run(o)
	if err != nil {
		return err
	}
	return writeBench(cmd, res)
}

// renderBench writes the outputs from the results of an earlier run: no flag that
// shapes a measurement goes with it.
func renderBench(cmd *cobra.Command, fs *pflag.FlagSet) error {
	var others []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed && f.Name != "render" && f.Name != "out" {
			others = append(others, "--"+f.Name)
		}
	})
	if len(others) > 0 {
		return fmt.Errorf("bench: --render measures nothing: %s would not apply", strings.Join(others, ", "))
	}
	res, err := bench.ReadResults(benchRender)
	if err != nil {
		return fmt.Errorf("bench: --render: %w", err)
	}
	if len(res.Cases) == 0 {
		// Rendered, it would replace a report with an empty one.
		return fmt.Errorf("bench: --render: %s lists no cases: not the results.json of a bench run", benchRender)
	}
	return writeBench(cmd, res)
}

// writeBench writes the report, the plots and the results under --out.
func writeBench(cmd *cobra.Command, res *bench.Results) error {
	paths, err := bench.WriteOutputs(res, benchOut)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
	}
	return nil
}

// parseInts parses a comma-separated list of positive integers.
func parseInts[T int | int64](s string) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, T(n))
	}
	return out, nil
}
