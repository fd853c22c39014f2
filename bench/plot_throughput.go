package bench

import (
	"fmt"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// line is one compared system: throughput summaries by size in MiB.
type line struct {
	label string
	mib   []int64
	gbps  []Summary
}

// throughputPlot draws throughput against size on log-log axes, one line
// with min–max bars per system and the memcpy ceiling dashed.
func throughputPlot(title string, r *Results, lines []line) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "size (MiB, log scale)"
	p.Y.Label.Text = "throughput (GB/s, log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var ticks []plot.Tick
	lo, hi := 0.0, 0.0
	ymin := r.Memcpy.Median
	for _, l := range lines {
		for i, m := range l.mib {
			x := float64(m)
			if lo == 0 || x < lo {
				lo = x
			}
			hi = max(hi, x)
			ymin = min(ymin, l.gbps[i].Min)
		}
	}
	for _, l := range lines[:1] {
		for _, m := range l.mib {
			ticks = append(ticks, plot.Tick{Value: float64(m), Label: strconv.FormatInt(m, 10)})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if hi == lo {
		lo, hi = lo/2, hi*2
	}
	// Room below the lowest point for the legend.
	p.Y.Min, p.Y.Max = ymin/8, 2*r.Memcpy.Median
	p.Legend.Top = false
	p.Legend.Left = false
	for i, l := range lines {
		s := spread{}
		for k, m := range l.mib {
			g := l.gbps[k]
			if g.N == 0 || g.Median <= 0 {
				continue
			}
			s.XYs = append(s.XYs, plotter.XY{X: float64(m), Y: g.Median})
			s.lo, s.hi = append(s.lo, g.Min), append(s.hi, g.Max)
		}
		if len(s.XYs) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(s.XYs)
		if err != nil {
			return nil, err
		}
		ln.Color, pts.Color, pts.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(s)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		p.Add(ln, pts, bars)
		p.Legend.Add(l.label, ln, pts)
	}
	ceil, err := plotter.NewLine(plotter.XYs{{X: lo, Y: r.Memcpy.Median}, {X: hi, Y: r.Memcpy.Median}})
	if err != nil {
		return nil, err
	}
	ceil.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	ceil.Color = plotutil.Color(len(lines))
	p.Add(ceil)
	p.Legend.Add(fmt.Sprintf("memcpy ceiling (Go copy, %d MiB)", r.MemcpyBytes>>20), ceil)
	p.Add(plotter.NewGrid())
	return p, nil
}

// stagingLines returns the staging systems' lines.
func stagingLines(r *Results, systems []string) []line {
	var out []line
	for _, sys := range systems {
		l := line{label: StagingLabel[sys]}
		for _, s := range r.Staging {
			l.mib, l.gbps = append(l.mib, s.MiB), append(l.gbps, s.GBps[sys])
		}
		out = append(out, l)
	}
	return out
}

// extraPlots draws the throughput plots of cases 4 and 6 into dir.
func extraPlots(r *Results, dir string) ([]string, error) {
	type fig struct {
		name, title string
		lines       []line
	}
	var figs []fig
	if len(r.Staging) > 0 {
		figs = append(figs, fig{"staging.png", "File staging: dyad rpc DTL vs raw TCP vs cp (median, min–max bars)",
			stagingLines(r, []string{StageRPC, StageRawTCP, StageCp})})
		figs = append(figs, fig{"ucx-staging.png", "File staging: dyad ucx DTL vs rpc DTL (median, min–max bars)",
			stagingLines(r, []string{StageRPC, StageUCXSM, StageUCXTCP})})
	}
	if len(r.UCXExchange) > 0 {
		var ls []line
		for _, sys := range UCXExchangeSystems {
			l := line{label: UCXExchangeLabel[sys]}
			for _, e := range r.UCXExchange {
				if g := e.GBps[sys]; g.N > 0 && g.Min > 0 { // a log scale: skip systems not measured
					l.mib, l.gbps = append(l.mib, e.MiB), append(l.gbps, g)
				}
			}
			if len(l.mib) > 0 {
				ls = append(ls, l)
			}
		}
		figs = append(figs, fig{"ucx-exchange.png", fmt.Sprintf("Array coupling %d -> %d over UCX (two launches) vs MPI (median, min–max bars)", Writers, Readers), ls})
	}
	var out []string
	for _, f := range figs {
		p, err := throughputPlot(f.title, r, f.lines)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, f.name)
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}
