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

// WritePlots draws the PNG plots of r into dir and returns their paths:
// exchange.png (throughput against size, one line per system plus the
// memcpy ceiling) and matching.png (critical-path matching time against
// boxes, one line per matcher count).
func WritePlots(r *Results, dir string) ([]string, error) {
	var out []string
	if len(r.Exchange) > 0 {
		p, err := exchangePlot(r)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "exchange.png")
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	if len(r.Matching) > 0 {
		p, err := matchingPlot(r)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "matching.png")
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	more, err := extraPlots(r, dir)
	if err != nil {
		return nil, err
	}
	return append(out, more...), nil
}

// spread is a line of medians with min–max error bars.
type spread struct {
	plotter.XYs
	lo, hi []float64
}

// YError returns the distances from the median down to the min and up to
// the max.
func (s spread) YError(i int) (float64, float64) { return s.XYs[i].Y - s.lo[i], s.hi[i] - s.XYs[i].Y }

func exchangePlot(r *Results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Array coupling, %d writers -> %d readers (median, min–max bars)", Writers, Readers)
	p.X.Label.Text = "array size (MiB, log scale)"
	p.Y.Label.Text = "throughput (GB/s)"
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, e := range r.Exchange {
		ticks = append(ticks, plot.Tick{Value: float64(e.MiB), Label: strconv.FormatInt(e.MiB, 10)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	// Room above the memcpy ceiling for the legend.
	p.Y.Min, p.Y.Max = 0, 1.5*r.Memcpy.Median
	p.Legend.Top = true
	p.Legend.Left = true
	for i, mode := range ExchangeModes {
		s := spread{}
		for _, e := range r.Exchange {
			g, ok := e.GBps[mode]
			if !ok {
				continue
			}
			s.XYs = append(s.XYs, plotter.XY{X: float64(e.MiB), Y: g.Median})
			s.lo, s.hi = append(s.lo, g.Min), append(s.hi, g.Max)
		}
		if len(s.XYs) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.XYs)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color, pts.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(s)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		p.Add(l, pts, bars)
		p.Legend.Add(ModeLabel[mode], l, pts)
	}
	lo, hi := float64(r.Exchange[0].MiB), float64(r.Exchange[len(r.Exchange)-1].MiB)
	if hi == lo {
		lo, hi = lo/2, hi*2
	}
	ceil, err := plotter.NewLine(plotter.XYs{{X: lo, Y: r.Memcpy.Median}, {X: hi, Y: r.Memcpy.Median}})
	if err != nil {
		return nil, err
	}
	ceil.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	ceil.Color = plotutil.Color(len(ExchangeModes))
	p.Add(ceil)
	p.Legend.Add(fmt.Sprintf("memcpy ceiling (Go copy, %d MiB)", r.MemcpyBytes>>20), ceil)
	p.Add(plotter.NewGrid())
	return p, nil
}

func matchingPlot(r *Results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Matching scaling: slowest matcher's time (range partition)"
	p.X.Label.Text = "write boxes = read boxes (log scale)"
	p.Y.Label.Text = "critical-path matching time (s, log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	// Times grow to the upper right: the lower right stays free for the legend.
	p.Legend.Top = false
	p.Legend.Left = false
	var counts []int
	seen := map[int]bool{}
	for _, m := range r.Matching {
		if !seen[m.Matchers] {
			seen[m.Matchers] = true
			counts = append(counts, m.Matchers)
		}
	}
	for i, c := range counts {
		var xys plotter.XYs
		for _, m := range r.Matching {
			if m.Matchers == c && m.Critical.Median > 0 {
				xys = append(xys, plotter.XY{X: float64(m.Boxes), Y: m.Critical.Median})
			}
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color, pts.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		p.Add(l, pts)
		name := fmt.Sprintf("%d matchers", c)
		if c == 1 {
			name = "1 matcher"
		}
		p.Legend.Add(name, l, pts)
	}
	widenLogAxes(p)
	p.Add(plotter.NewGrid())
	return p, nil
}

// widenLogAxes gives an axis that holds a single value a range of its own
// (half to twice it): gonum's default padding of such a range is additive
// and would reach zero or below on a log scale.
func widenLogAxes(p *plot.Plot) {
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		if ax.Min == ax.Max {
			ax.Min, ax.Max = ax.Min/2, ax.Max*2
		}
	}
}
