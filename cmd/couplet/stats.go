package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
config, or COUPLET_STATS) and prints one row per file and epoch, aggregated over
ranks: ranks, bytes moved, slowest matching and transfer time, throughput
(bytes / slowest transfer, SI GB/s), messages and the replay outcome.
With -o DIR it also writes DIR/throughput.png (throughput per epoch) and
DIR/times.png (matching vs transfer time per epoch).`,
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
		sums := stats.Summarize(recs)
		writeStatsTable(cmd.OutOrStdout(), sums)
		if statsPlotDir != "" {
			paths, err := writeStatsPlots(statsPlotDir, sums)
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

func writeStatsTable(w io.Writer, sums []stats.Summary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FILE\tSESSION\tEPOCH\tWRITERS\tREADERS\tBYTES\tMATCH\tTRANSFER\tTHROUGHPUT\tMSGS\tREPLAY\tERRORS\t")
	var bytes int64
	var transfer time.Duration
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%v\t%v\t%s\t%d\t%s\t%d\t\n",
			s.File, s.Session, s.Epoch, s.Writers, s.Readers, humanize.Bytes(uint64(s.Bytes)),
			s.Match.Round(time.Microsecond), s.Transfer.Round(time.Microsecond),
			rate(s.Throughput()), s.Msgs, s.Replay(), s.Errors)
		bytes += s.Bytes
		transfer += s.Transfer
	}
	tw.Flush()
	total := stats.Summary{Bytes: bytes, Transfer: transfer}
	fmt.Fprintf(w, "%d epoch(s), %s moved, %s over the summed slowest transfer times\n",
		len(sums), humanize.Bytes(uint64(bytes)), rate(total.Throughput()))
}

func rate(bps float64) string {
	if bps <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f GB/s", bps/1e9) // SI, as everywhere in couplet
}

// writeStatsPlots draws the per-epoch plots; epochs are numbered in start order.
func writeStatsPlots(dir string, sums []stats.Summary) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tp := make(plotter.XYs, len(sums))
	match := make(plotter.XYs, len(sums))
	xfer := make(plotter.XYs, len(sums))
	for i, s := range sums {
		x := float64(i)
		tp[i] = plotter.XY{X: x, Y: s.GBps()}
		match[i] = plotter.XY{X: x, Y: float64(s.Match) / float64(time.Millisecond)}
		xfer[i] = plotter.XY{X: x, Y: float64(s.Transfer) / float64(time.Millisecond)}
	}
	p1 := plot.New()
	p1.Title.Text = "Throughput per epoch"
	p1.X.Label.Text = "epoch (in start order)"
	p1.Y.Label.Text = "GB/s (SI)"
	if err := plotutil.AddLinePoints(p1, "throughput", tp); err != nil {
		return nil, err
	}
	p2 := plot.New()
	p2.Title.Text = "Matching vs transfer time per epoch (slowest rank)"
	p2.X.Label.Text = "epoch (in start order)"
	p2.Y.Label.Text = "ms"
	if err := plotutil.AddLinePoints(p2, "matching", match, "transfer", xfer); err != nil {
		return nil, err
	}
	for _, p := range []*plot.Plot{p1, p2} {
		p.Y.Min = 0 // rates and times start at zero; a floating axis exaggerates changes
		if p.Y.Max > 0 {
			p.Y.Max *= 1.2 // headroom for the legend
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
