package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

// statsPlotDir is where `couplet stats -o DIR` writes its PNG plots.
var statsPlotDir string

var statsCmd = &cobra.Command{
	Use:   "stats FILE",
	Short: "summarise a run's statistics (JSON lines) as a table and PNG plots",
	Long: `Stats reads the JSON-lines statistics a coupled run wrote (stats_path in the
config, or COUPLET_STATS) and prints one row per file and epoch, numbered (#) in
start order and aggregated over ranks (each time is the slowest rank's):

  REPLAY    hit (every rank replayed: no matching), miss (matched afresh and
            recorded), off (replay_io = 0) or partial
  MATCH     the matchers' work: box algebra and scheduling (0 on a hit)
  SCHED     the readers' wait for their schedules beyond WAIT: the round trip
            to the matchers
  WAIT      the readers' wait for the writers to reach the end of the epoch
  TRANSFER  the readers' posting of receives and receiving the data
  GB/s      bytes / TRANSFER, in SI units (10^9 bytes per second)

With -o DIR it also writes DIR/throughput.png and DIR/times.png (MATCH, SCHED,
WAIT and TRANSFER), whose x axis is the table's # with the replay outcome.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		recs, err := stats.Read(f)
		if err != nil {
			return fmt.Errorf("%s: %w", args[0], err)
		}
		if len(recs) == 0 {
			return fmt.Errorf("%s: no statistics records", args[0])
		}
		dir, rows := statsRows(stats.Summarize(recs))
		writeStatsTable(cmd.OutOrStdout(), dir, rows)
		if statsPlotDir != "" {
			paths, err := writeStatsPlots(statsPlotDir, rows)
			if err != nil {
				return err
			}
			for _, p := range paths {
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
			}
		}
		return nil
	},
}

func init() {
	statsCmd.Flags().StringVarP(&statsPlotDir, "out", "o", "", "directory for PNG plots (none if empty)")
	root.AddCommand(statsCmd)
}

// statsRow is one epoch as the table prints it and the plots draw it: a
// plot's x is the row's number, so a point and a row name the same epoch
// with the same numbers.
type statsRow struct {
	stats.Summary
	N    int    // row number: the epoch's place in start order
	Name string // the file, relative to the files' common directory
}

// Times of a row in milliseconds, and its throughput in SI GB/s: the values
// both the table and the plots show.
func (r statsRow) matchMS() float64    { return ms(r.Match) }
func (r statsRow) schedMS() float64    { return ms(r.Sched) }
func (r statsRow) waitMS() float64     { return ms(r.Wait) }
func (r statsRow) transferMS() float64 { return ms(r.Transfer) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// statsRows numbers the epochs in start order and names their files
// relative to the directory they share (empty if none).
func statsRows(sums []stats.Summary) (dir string, rows []statsRow) {
	files := make([]string, len(sums))
	for i, s := range sums {
		files[i] = s.File
	}
	dir = commonDir(files)
	for i, s := range sums {
		name := s.File
		if dir != "" {
			name = strings.TrimPrefix(strings.TrimPrefix(s.File, dir), "/")
		}
		rows = append(rows, statsRow{Summary: s, N: i, Name: name})
	}
	return dir, rows
}

// commonDir is the longest directory (whole path elements) that holds every
// one of files, or "" if they share none.
func commonDir(files []string) string {
	var common []string
	for i, f := range files {
		parts := strings.Split(filepath.Clean(f), "/")
		parts = parts[:len(parts)-1] // the directories
		if i == 0 {
			common = parts
			continue
		}
		n := 0
		for n < len(common) && n < len(parts) && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	dir := strings.Join(common, "/")
	if dir == "" && len(common) > 0 {
		return "/" // absolute paths sharing only the root
	}
	return dir
}

func writeStatsTable(w io.Writer, dir string, rows []statsRow) {
	if dir != "" {
		fmt.Fprintf(w, "files in %s\n", dir)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tFILE\tSESSION\tEPOCH\tREPLAY\tWRITERS\tREADERS\tBYTES\tMATCH ms\tSCHED ms\tWAIT ms\tTRANSFER ms\tGB/s\tMSGS\tERRORS\t")
	sums := make([]stats.Summary, len(rows))
	for i, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%d\t%d\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%d\t%d\t\n",
			r.N, r.Name, r.Session, r.Epoch, r.Replay(), r.Writers, r.Readers, humanize.Bytes(uint64(r.Bytes)),
			r.matchMS(), r.schedMS(), r.waitMS(), r.transferMS(), gbps(r.GBps()), r.Msgs, r.Errors)
		sums[i] = r.Summary
	}
	tw.Flush()
	total := stats.Total(sums)
	fmt.Fprintf(w, "%d epoch(s), %s moved, %s GB/s over the summed slowest transfer times\n",
		len(rows), humanize.Bytes(uint64(total.Bytes)), gbps(total.GBps()))
	if g := stats.CompareReplay(sums); g.Hits+g.Misses > 0 {
		fmt.Fprintf(w, "replay: %d hit epoch(s), MATCH at most %.3f ms; %d miss epoch(s), MATCH at least %.3f ms\n",
			g.Hits, ms(g.HitMatchMax), g.Misses, ms(g.MissMatchMin))
	}
	fmt.Fprintln(w, "times: slowest rank's; MATCH matchers' work, SCHED readers' wait for schedules, WAIT readers' wait for the writers, TRANSFER receiving")
}

// gbps formats a rate in SI GB/s, as everywhere in couplet.
func gbps(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// statsSeries are the plotted lines, by name: one point per row at x = #.
func statsSeries(rows []statsRow) map[string]plotter.XYs {
	out := map[string]plotter.XYs{}
	for _, r := range rows {
		x := float64(r.N)
		for name, y := range map[string]float64{
			"throughput": r.GBps(), "match": r.matchMS(), "sched": r.schedMS(),
			"wait": r.waitMS(), "transfer": r.transferMS(),
		} {
			out[name] = append(out[name], plotter.XY{X: x, Y: y})
		}
	}
	return out
}

// statsTicks label the x axis with each row's # and replay outcome.
func statsTicks(rows []statsRow) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(rows))
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: float64(r.N), Label: fmt.Sprintf("%d\n%s", r.N, r.Replay())}
	}
	return ticks
}

// writeStatsPlots draws the per-epoch plots of the table's rows.
func writeStatsPlots(dir string, rows []statsRow) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	series := statsSeries(rows)
	p1 := plot.New()
	p1.Title.Text = "Throughput per epoch (bytes / slowest transfer)"
	p1.Y.Label.Text = "GB/s (SI)"
	if err := plotutil.AddLinePoints(p1, "throughput", series["throughput"]); err != nil {
		return nil, err
	}
	p2 := plot.New()
	p2.Title.Text = "Times per epoch (slowest rank)"
	p2.Y.Label.Text = "ms"
	if err := plotutil.AddLinePoints(p2, "match", series["match"], "sched", series["sched"],
		"wait", series["wait"], "transfer", series["transfer"]); err != nil {
		return nil, err
	}
	for _, p := range []*plot.Plot{p1, p2} {
		p.X.Label.Text = "# (the table's row) and replay outcome"
		p.X.Tick.Marker = statsTicks(rows)
		p.X.Min, p.X.Max = -0.5, float64(len(rows))-0.5
		p.Y.Min = 0 // rates and times start at zero; a floating axis exaggerates changes
		if p.Y.Max > 0 {
			p.Y.Max *= 1.3 // headroom for the legend
		}
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
	}
	var paths []string
	for _, out := range []struct {
		name string
		p    *plot.Plot
	}{{"throughput.png", p1}, {"times.png", p2}} {
		path := filepath.Join(dir, out.name)
		if err := out.p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
			return nil, fmt.Errorf("plot %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
