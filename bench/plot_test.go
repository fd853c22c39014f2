package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMatchingPlotDegenerate draws the matching plot from results whose
// axes hold a single value (one problem side, one matcher count), as
// `bench -cases 2 -matchers 1 -match-sides 10` produces.
func TestMatchingPlotDegenerate(t *testing.T) {
	point := func(boxes, matchers int, s float64) MatchPoint {
		return MatchPoint{Boxes: boxes, Matchers: matchers, Critical: Summarize([]float64{s})}
	}
	cases := []struct {
		name   string
		points []MatchPoint
	}{
		{"one point", []MatchPoint{point(1000, 1, 0.0009)}},
		{"one side, two matcher counts", []MatchPoint{point(1000, 1, 0.0009), point(1000, 2, 0.0005)}},
		{"two sides, one matcher count", []MatchPoint{point(1000, 1, 0.0009), point(10648, 1, 0.01)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := WritePlots(&Results{Matching: c.points}, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, "matching.png")
			if len(paths) != 1 || paths[0] != want {
				t.Fatalf("plots %v, want [%s]", paths, want)
			}
			if st, err := os.Stat(want); err != nil || st.Size() == 0 {
				t.Fatalf("matching.png: %v", err)
			}
		})
	}
}
