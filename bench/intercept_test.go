package bench

import (
	"strings"
	"testing"
)

// TestMeasureIntercept runs case 7 briefly: both kinds of path are measured plain and
// preloaded in every repetition, and the report has its table.
func TestMeasureIntercept(t *testing.T) {
	pts, err := MeasureIntercept(2000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || pts[0].Path != "absolute" || pts[1].Path != "relative" {
		t.Fatalf("points %+v", pts)
	}
	for _, p := range pts {
		if p.Plain.N != 2 || p.Preload.N != 2 || p.Overhead.N != 2 || p.Plain.Min <= 0 || p.Preload.Min <= 0 {
			t.Fatalf("%s: %+v", p.Path, p)
		}
	}
	var b strings.Builder
	writeIntercept(&b, &Results{Intercept: pts})
	if !strings.Contains(b.String(), "| absolute |") || !strings.Contains(b.String(), "| relative |") {
		t.Fatalf("report:\n%s", b.String())
	}
}
