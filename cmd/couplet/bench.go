package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/couplet-hpc/couplet/bench"
)

var benchCmd = &cobra.Command{
	Use:   "bench [-quick] [-cases 1,2,3,4,5,6,7] [-sizes 64,256,1024] [-reps 5] [-out docs]",
	Short: "measure couplet side by side with raw MPI, real files, TCP, cp and UCX; write docs/PERFORMANCE.md, plots and JSON",
	Long: `Bench runs the harness of bench/: each case against its baselines in the
same run, each measurement repeated (5 times by default) and reported as
median (min–max), with the machine's memcpy bandwidth as the ceiling.

  case 1  array coupling: couplet vs raw MPI vs real PnetCDF files,
          3-D float64, 4 writers -> 2 readers (one MPMD mpirun per size)
  case 2  matching scaling: 10^3..10^6 boxes, 1..8 matchers (in process)
  case 3  replay on vs off over cycles (one MPMD mpirun, both modes interleaved)
  case 4  file staging: dyad rpc DTL vs raw loopback TCP vs cp (in-process agents)
  case 5  locator lookups per level: local dir, agent cache, etcd
  case 6  UCX vs MPI: array coupling across two mpiruns over UCX (sm, tcp) vs
          one MPMD mpirun over MPI; staging over the ucx DTL vs rpc

It writes OUT/PERFORMANCE.md, OUT/perf/*.png and OUT/perf/results.json.
Flags take one or two dashes.`,
	// The standard flag package parses the flags so that the single-dash
	// spelling (-quick) works as documented.
	DisableFlagParsing: true,
	RunE:               runBench,
}

func init() { root.AddCommand(benchCmd) }

func runBench(cmd *cobra.Command, args []string) error {
	fs := flag.NewFlagSet("couplet bench", flag.ContinueOnError)
	fs.SetOutput(cmd.ErrOrStderr())
	quick := fs.Bool("quick", false, "a short run: cases 1 and 6a at 64 MiB, case 2 up to 10^5 boxes, staging at 1 and 16 MiB")
	cases := fs.String("cases", "", "cases to measure, e.g. 1,2 (default all)")
	stageSizes := fs.String("stage-sizes", "", "case-4/6b file sizes in MiB (default 1,16,256,1024; quick 1,16)")
	stageBigReps := fs.Int("stage-big-reps", 0, "repetitions for staging sizes >= -big-mib (0 = same as -reps)")
	ucxSizes := fs.String("ucx-sizes", "", "case-6a array sizes in MiB, even (default 64,256,1024; quick 64)")
	cycles := fs.Int("cycles", 0, "case-3 cycles per mode, the first recording (default 8; quick 6)")
	sizes := fs.String("sizes", "", "case-1 sizes in MiB, even, >= 4 (default 64,256,1024; quick 64)")
	reps := fs.Int("reps", 5, "timed repetitions per measurement")
	bigReps := fs.Int("big-reps", 0, "repetitions for case-1 sizes >= -big-mib (0 = same as -reps)")
	bigMiB := fs.Int64("big-mib", 1024, "size from which -big-reps applies")
	sides := fs.String("match-sides", "", "case-2 problem sides n, n^3 boxes each (default 10,22,46,100; quick 10,22,46)")
	matchers := fs.String("matchers", "", "case-2 matcher counts (default 1,2,4,8)")
	out := fs.String("out", "docs", "directory for PERFORMANCE.md and perf/")
	timeout := fs.Duration("timeout", 10*time.Minute, "limit for each mpirun launch")
	var mca []string
	fs.Func("mca", "extra Open MPI setting KEY=VALUE for case 1, e.g. btl_vader_max_send_size=1048576 (repeatable)", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("%q: want KEY=VALUE", v)
		}
		mca = append(mca, "OMPI_MCA_"+strings.TrimPrefix(k, "OMPI_MCA_")+"="+val)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected arguments %q", fs.Args())
	}
	o := bench.DefaultOptions(*quick)
	o.Reps, o.BigReps, o.BigMiB, o.Timeout, o.MCA = *reps, *bigReps, *bigMiB, *timeout, mca
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
	if len(args) > 0 {
		o.Command = "go run ./cmd/couplet bench " + strings.Join(args, " ")
	}
	w := cmd.ErrOrStderr()
	o.Progress = func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	res, err := bench.Run(o)
	if err != nil {
		return err
	}
	paths, err := bench.WriteOutputs(res, *out)
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
