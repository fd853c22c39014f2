package bench

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		name          string
		in            []float64
		med, min, max float64
	}{
		{"odd", []float64{3, 1, 2}, 2, 1, 3},
		{"even", []float64{4, 1, 3, 2}, 2.5, 1, 4},
		{"one", []float64{7}, 7, 7, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.in)
			if s.N != len(c.in) || s.Median != c.med || s.Min != c.min || s.Max != c.max {
				t.Errorf("Summarize(%v) = %+v, want median %v min %v max %v", c.in, s, c.med, c.min, c.max)
			}
			if c.in[0] != s.All[0] {
				t.Errorf("All is not in the order taken: %v", s.All)
			}
		})
	}
	if s := Summarize(nil); s.N != 0 || s.Format("%.1f") != "–" {
		t.Errorf("empty summary: %+v %q", s, s.Format("%.1f"))
	}
}

func TestRate(t *testing.T) {
	r := Summarize([]float64{1, 2, 4}).Rate(8)
	if r.Median != 4 || r.Min != 2 || r.Max != 8 {
		t.Errorf("Rate = %+v, want median 4 min 2 max 8", r)
	}
	r = Summarize([]float64{1, 3}).Rate(6)
	if math.Abs(r.Median-3) > 1e-12 {
		t.Errorf("even-N median rate %v, want 6/2 = 3", r.Median)
	}
	if got := Summarize([]float64{1, 2}).Scale(10).Format("%.0f"); got != "15 (10–20)" {
		t.Errorf("Format = %q", got)
	}
}
