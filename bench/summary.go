package bench

import (
	"fmt"
	"slices"
)

// Summary condenses repeated measurements of one quantity.
type Summary struct {
	N      int       `json:"n"`      // number of measurements
	Median float64   `json:"median"` // median (mean of the middle two for even N)
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	All    []float64 `json:"all"` // every measurement, in the order taken
}

// Summarize returns the summary of xs; it is zero when xs is empty.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Summary{N: n, Median: med, Min: s[0], Max: s[n-1], All: slices.Clone(xs)}
}

// Rate converts a summary of seconds into a summary of amount/second: the
// slowest time gives the minimum rate.
func (s Summary) Rate(amount float64) Summary {
	if s.N == 0 {
		return Summary{}
	}
	all := make([]float64, len(s.All))
	for i, t := range s.All {
		all[i] = amount / t
	}
	r := Summarize(all)
	// The median rate is defined from the median time, so that ratios of
	// rates equal ratios of median times for even N as well.
	r.Median = amount / s.Median
	return r
}

// Scale returns s with every value multiplied by k (k > 0).
func (s Summary) Scale(k float64) Summary {
	out := s
	out.Median, out.Min, out.Max = s.Median*k, s.Min*k, s.Max*k
	out.All = make([]float64, len(s.All))
	for i, v := range s.All {
		out.All[i] = v * k
	}
	return out
}

// Format prints "median (min–max)" with the given verb, e.g. "%.2f".
func (s Summary) Format(verb string) string {
	if s.N == 0 {
		return "–"
	}
	return fmt.Sprintf(verb+" ("+verb+"–"+verb+")", s.Median, s.Min, s.Max)
}

// MergeLaunches combines one quantity measured in several separate launches
// (each a summary of its repetitions): the median of the launch medians,
// with the spread (min–max) across launch medians. All holds the launch
// medians in launch order, so one launch that ran apart from the others
// shows.
func MergeLaunches(ls []Summary) Summary {
	meds := make([]float64, 0, len(ls))
	for _, l := range ls {
		if l.N > 0 {
			meds = append(meds, l.Median)
		}
	}
	return Summarize(meds)
}

// mergeMaps merges per-system summaries of several launches with
// MergeLaunches, system by system.
func mergeMaps(ms []map[string]Summary) map[string]Summary {
	by := map[string][]Summary{}
	for _, m := range ms {
		for k, s := range m {
			by[k] = append(by[k], s)
		}
	}
	out := make(map[string]Summary, len(by))
	for k, ls := range by {
		out[k] = MergeLaunches(ls)
	}
	return out
}
