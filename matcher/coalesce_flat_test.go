package matcher

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// disjointFlat returns a random flat list of disjoint boxes in d dimensions
// over [0,l): a random box minus random boxes, the pieces shuffled, some
// split in two along a random dimension so there is something to merge.
func disjointFlat(rng *rand.Rand, d int, l int64, cuts int) []int64 {
	w := 2 * d
	box := func() []int64 {
		b := make([]int64, w)
		for k := range d {
			b[k] = rng.Int64N(l)
			b[d+k] = b[k] + 1 + rng.Int64N(l-b[k])
		}
		return b
	}
	cur := box()
	tmp := make([]int64, w)
	for range cuts {
		c := box()
		cur = subtractFlat(cur, d, c[:d], c[d:], tmp)
	}
	var out []int64
	for p := 0; p < len(cur); p += w {
		b := cur[p : p+w]
		k := rng.IntN(d)
		if b[d+k]-b[k] < 2 || rng.IntN(2) == 0 {
			out = append(out, b...)
			continue
		}
		mid := b[k] + 1 + rng.Int64N(b[d+k]-b[k]-1)
		lo := append([]int64(nil), b...)
		lo[d+k] = mid
		hi := append([]int64(nil), b...)
		hi[k] = mid
		out = append(append(out, lo...), hi...)
	}
	// Shuffle whole boxes.
	n := len(out) / w
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		for k := range w {
			out[i*w+k], out[j*w+k] = out[j*w+k], out[i*w+k]
		}
	}
	return out
}

// gridFlat returns the unit boxes of the grid [0,l)^d in random order, each
// kept with probability keep: long lists with much to merge.
func gridFlat(rng *rand.Rand, d int, l int64, keep float64) []int64 {
	var out []int64
	var p [4]int64
	var rec func(k int)
	rec = func(k int) {
		if k == d {
			if rng.Float64() < keep {
				out = append(out, p[:d]...)
				for j := range d {
					out = append(out, p[j]+1)
				}
			}
			return
		}
		for x := range l {
			p[k] = x
			rec(k + 1)
		}
	}
	rec(0)
	w := 2 * d
	for i := len(out)/w - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		for k := range w {
			out[i*w+k], out[j*w+k] = out[j*w+k], out[i*w+k]
		}
	}
	return out
}

// flatElems returns the elements covered by the flat boxes and whether any
// element is covered twice.
func flatElems(l []int64, d int) (map[point]bool, bool) {
	seen := map[point]bool{}
	twice := false
	for p := 0; p < len(l); p += 2 * d {
		forEach(boxFromBounds(l[p:p+d], l[p+d:p+2*d]), func(q point) {
			twice = twice || seen[q]
			seen[q] = true
		})
	}
	return seen, twice
}

func TestCoalesceFlat(t *testing.T) {
	// cuts >= 0: a random box minus cuts boxes; cuts < 0: a grid of unit
	// boxes, each kept with probability keep.
	tests := []struct {
		d    int
		l    int64
		cuts int
		keep float64
	}{
		{1, 40, 3, 0}, {2, 12, 0, 0}, {2, 12, 4, 0}, {3, 8, 1, 0}, {3, 8, 6, 0}, {3, 16, 12, 0}, {4, 5, 8, 0},
		{1, 30, -1, 0.8}, {2, 6, -1, 0.9}, {3, 4, -1, 0.7}, {3, 3, -1, 1}, {4, 3, -1, 0.85},
	}
	var fc flatCoalescer // shared: scratch reuse must not leak between calls
	for _, tc := range tests {
		t.Run(fmt.Sprintf("d=%d/l=%d/cuts=%d/keep=%g", tc.d, tc.l, tc.cuts, tc.keep), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.d), uint64(tc.cuts+10)))
			for iter := range 300 {
				var in []int64
				if tc.cuts >= 0 {
					in = disjointFlat(rng, tc.d, tc.l, tc.cuts)
				} else {
					in = gridFlat(rng, tc.d, tc.l, tc.keep)
				}
				var boxes []Box
				for p := 0; p < len(in); p += 2 * tc.d {
					boxes = append(boxes, boxFromBounds(in[p:p+tc.d], in[p+tc.d:p+2*tc.d]))
				}
				want := Coalesce(boxes)
				inElems, _ := flatElems(in, tc.d)
				got := fc.coalesce(append([]int64(nil), in...), tc.d)
				gotElems, twice := flatElems(got, tc.d)
				if twice {
					t.Fatalf("iter %d: output %v not disjoint", iter, got)
				}
				if len(gotElems) != len(inElems) {
					t.Fatalf("iter %d: output covers %d elements, input %d", iter, len(gotElems), len(inElems))
				}
				for q := range inElems {
					if !gotElems[q] {
						t.Fatalf("iter %d: element %v lost", iter, q)
					}
				}
				if gb := flatBoxes(&fc, got, tc.d); !boxesEqual(gb, want) {
					t.Fatalf("iter %d: coalesce(%v) = %v, Coalesce gives %v", iter, in, gb, want)
				}
			}
		})
	}
}

func TestCoalesceFlatEdge(t *testing.T) {
	tests := []struct {
		name string
		d    int
		in   []int64
		want []int64
	}{
		{"none", 2, nil, nil},
		{"empty dropped", 2, []int64{0, 0, 3, 0}, nil},
		{"one", 1, []int64{2, 5}, []int64{2, 5}},
		{"merge 1d", 1, []int64{5, 7, 0, 2, 2, 5}, []int64{0, 7}},
		{"gap kept", 1, []int64{4, 7, 0, 2}, []int64{0, 2, 4, 7}},
		{"2x2 to one", 2, []int64{1, 1, 2, 2, 0, 0, 1, 1, 0, 1, 1, 2, 1, 0, 2, 1}, []int64{0, 0, 2, 2}},
		{"L shape canonical", 2, []int64{0, 1, 1, 2, 0, 0, 2, 1}, []int64{0, 0, 2, 1, 0, 1, 1, 2}},
		{"scalar dims", 0, []int64{}, []int64{}},
	}
	var fc flatCoalescer
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fc.coalesce(append([]int64(nil), tc.in...), tc.d)
			if len(got) != len(tc.want) {
				t.Fatalf("coalesce(%v) = %v, want %v", tc.in, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("coalesce(%v) = %v, want %v", tc.in, got, tc.want)
				}
			}
		})
	}
}

// TestCoalesceFlatNoAllocs checks that a warmed-up coalescer allocates
// nothing, on short (insertion sort) and long (permutation) lists.
func TestCoalesceFlatNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, in := range [][]int64{gridFlat(rng, 3, 2, 0.7), gridFlat(rng, 3, 4, 0.8)} {
		buf := make([]int64, len(in))
		var fc flatCoalescer
		fc.coalesce(append(buf[:0], in...), 3) // warm up the scratch
		if a := testing.AllocsPerRun(20, func() { fc.coalesce(append(buf[:0], in...), 3) }); a != 0 {
			t.Errorf("%d boxes: %v allocations per coalesce", len(in)/6, a)
		}
	}
}

// TestSubtractFlat checks the in-place flat subtraction against Subtract:
// the same pieces for every box of a list, in any order.
func TestSubtractFlat(t *testing.T) {
	// The list is the blocks of side s of a grid of side l (some left
	// out), so a cut covers some boxes whole and cuts others; or, for
	// s == 0, a random box minus two others.
	tests := []struct {
		d int
		l int64
		s int64
	}{
		{1, 20, 0}, {2, 10, 0}, {3, 8, 0}, {4, 5, 0},
		{1, 30, 3}, {2, 12, 3}, {3, 9, 3}, {3, 8, 2}, {4, 6, 2},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("d=%d/l=%d/s=%d", tc.d, tc.l, tc.s), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.d), uint64(tc.s)))
			d, w := tc.d, 2*tc.d
			tmp := make([]int64, w)
			for iter := range 500 {
				var list []int64
				if tc.s == 0 {
					list = disjointFlat(rng, d, tc.l, 2)
				} else {
					list = gridFlat(rng, d, tc.l/tc.s, 0.8)
					for i := range list {
						list[i] *= tc.s
					}
				}
				cut := make([]int64, w)
				for k := range d {
					cut[k] = rng.Int64N(tc.l)
					cut[d+k] = cut[k] + 1 + rng.Int64N(tc.l-cut[k])
				}
				var want []Box
				for p := 0; p < len(list); p += w {
					a := boxFromBounds(list[p:p+d], list[p+d:p+w])
					want = append(want, Subtract(a, boxFromBounds(cut[:d], cut[d:]))...)
				}
				got := subtractFlat(append([]int64(nil), list...), d, cut[:d], cut[d:], tmp)
				var gb []Box
				for p := 0; p < len(got); p += w {
					gb = append(gb, boxFromBounds(got[p:p+d], got[p+d:p+w]))
				}
				slices.SortFunc(want, compareBoxes)
				slices.SortFunc(gb, compareBoxes)
				if !boxesEqual(gb, want) {
					t.Fatalf("iter %d: %v minus %v = %v, Subtract gives %v", iter, list, cut, gb, want)
				}
			}
		})
	}
}
