package transport

import (
	"math/rand/v2"
	"testing"
)

// TestRunCursor walks every block of packCases from several starting
// bytes with steps of varied lengths and checks each position against the
// runs EachRun lists: the byte's offset, and the bytes left in its run.
func TestRunCursor(t *testing.T) {
	for _, c := range packCases {
		b := Block{ElemSize: c.es, Shape: c.shape, Start: c.start, Count: c.count}
		total := b.Bytes()
		if total == 0 {
			continue
		}
		type run struct{ off, n int64 }
		var runs []run
		EachRun(b, func(off, n int64) { runs = append(runs, run{off, n}) })
		row := runs[0].n
		rng := rand.New(rand.NewPCG(uint64(total), 1))
		for _, pos := range []int64{0, 1, int64(c.es), row - 1, row, total / 2, total - 1} {
			if pos < 0 || pos >= total {
				continue
			}
			cur := NewRunCursor(b, pos)
			for p := pos; p < total; {
				want := runs[p/row]
				in := p % row
				off, n := cur.Run()
				if off != want.off+in || n != want.n-in {
					t.Fatalf("%s from byte %d: at byte %d Run() = (%d, %d), want (%d, %d)", c.name, pos, p, off, n, want.off+in, want.n-in)
				}
				step := min(n, 1+rng.Int64N(2*row)) // often the whole rest of the run
				cur.Skip(step)
				p += step
			}
		}
	}
}
