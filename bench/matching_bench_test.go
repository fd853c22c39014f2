package bench

import (
	"runtime"
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
)

// BenchmarkCase2 matches the case-2 workload at 10^6 x 10^6 boxes on one
// matcher and one core, as the report's target row measures it.
func BenchmarkCase2(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ws, rs, _ := BlockBoxes(100, 8)
	b.ReportAllocs()
	for b.Loop() {
		s, err := matcher.Match(ws, rs)
		if err != nil || len(s.Uncovered) != 0 {
			b.Fatal(err, len(s.Uncovered))
		}
	}
}
