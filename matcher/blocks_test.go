package matcher

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// blockWrites returns an n^3 block decomposition of side n*b (blocks in
// row-major order, rank = block / per, Seq = seq(block)) and reads of the
// same blocks shifted by sh and clipped to [0, n*b+over) along each
// dimension, so over > 0 leaves parts of the edge reads unwritten.
func blockWrites(n, b, per int64, sh [3]int64, over int64, seq func(int64) int64) ([]Write, []Read) {
	var ws []Write
	var rs []Read
	side := n * b
	for i := range n {
		for j := range n {
			for k := range n {
				blk := (i*n+j)*n + k
				ws = append(ws, Write{Rank: int(blk / per), Seq: seq(blk), Box: bx(i*b, b, j*b, b, k*b, b)})
				s := [3]int64{i*b + sh[0], j*b + sh[1], k*b + sh[2]}
				c := func(k int) int64 { return max(0, min(b, side+over-s[k])) }
				rs = append(rs, Read{Rank: int(blk % 5), ID: blk, Box: bx(s[0], c(0), s[1], c(1), s[2], c(2))})
			}
		}
	}
	return ws, rs
}

// TestBlockPath checks which variables take the block path and that it
// yields exactly the schedule of the general path, both checked against
// per-element brute force.
func TestBlockPath(t *testing.T) {
	asc := func(b int64) int64 { return b }
	desc := func(b int64) int64 { return -b }
	same := func(int64) int64 { return 0 }
	shuffled := func(ws []Write, rs []Read) ([]Write, []Read) {
		rng := rand.New(rand.NewPCG(5, 6))
		rng.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		return ws, rs
	}
	withOverlap := func(ws []Write, rs []Read) ([]Write, []Read) {
		return append(ws, Write{Rank: 9, Seq: 100, Box: bx(2, 5, 3, 4, 1, 6)}), rs
	}
	withEmpty := func(ws []Write, rs []Read) ([]Write, []Read) {
		ws = append([]Write{{Rank: 3, Box: bx(0, 0, 0, 4, 0, 4)}}, ws...)
		return ws, append(rs, Read{Rank: 1, ID: 1000, Box: bx(1, 2, 0, 0, 3, 1)})
	}
	withOtherVar := func(ws []Write, rs []Read) ([]Write, []Read) {
		ws = append(ws, Write{Rank: 2, Var: 1, Box: bx(0, 8, 0, 8)}, Write{Rank: 1, Var: 1, Seq: 1, Box: bx(4, 8, 4, 8)})
		return ws, append(rs, Read{Rank: 0, Var: 1, ID: 7, Box: bx(2, 8, 4, 4)}, Read{Rank: 4, Var: 1, ID: 8, Box: bx(0, 3, 0, 3)})
	}
	noChange := func(ws []Write, rs []Read) ([]Write, []Read) { return ws, rs }
	tests := []struct {
		name   string
		n, b   int64
		per    int64
		sh     [3]int64
		over   int64
		seq    func(int64) int64
		edit   func([]Write, []Read) ([]Write, []Read)
		blocks bool // variable 0 takes the block path
	}{
		{"shifted by half a block", 4, 4, 8, [3]int64{2, 2, 2}, 0, asc, noChange, true},
		{"shifted along one dimension", 4, 4, 3, [3]int64{0, 0, 1}, 0, asc, noChange, true},
		{"aligned", 3, 2, 1, [3]int64{}, 0, asc, noChange, true},
		{"priorities descending", 4, 3, 8, [3]int64{1, 2, 0}, 0, desc, noChange, true},
		{"equal priorities, ranks decide", 4, 3, 5, [3]int64{1, 1, 1}, 0, same, noChange, true},
		{"reads beyond the written extent", 4, 4, 8, [3]int64{2, 3, 1}, 3, asc, noChange, true},
		{"reads before the written extent", 4, 4, 8, [3]int64{-3, -2, -1}, 0, asc, noChange, true},
		{"requests shuffled", 4, 4, 8, [3]int64{2, 2, 2}, 2, asc, shuffled, true},
		{"empty write and read", 4, 4, 8, [3]int64{2, 2, 2}, 0, asc, withEmpty, true},
		{"second variable in 2-D", 4, 4, 8, [3]int64{2, 2, 2}, 0, asc, withOtherVar, true},
		{"overlapping write", 4, 4, 8, [3]int64{2, 2, 2}, 0, asc, withOverlap, false},
	}
	defer func(old bool) { blockPath = old }(blockPath)
	defer func(old int) { listMax = old }(listMax)
	listMax = 1 // grids even on these small inputs
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, rs := tc.edit(blockWrites(tc.n, tc.b, tc.per, tc.sh, tc.over, tc.seq))
			blockPath = true
			set, err := collectWrites(ws)
			if err != nil {
				t.Fatal(err)
			}
			vw := set.vars[0]
			vw.idx = vw.buildIndex(ws)
			if vw.blocks != tc.blocks {
				t.Fatalf("block path %v, want %v", vw.blocks, tc.blocks)
			}
			if v1 := set.vars[1]; v1 != nil {
				if v1.buildIndex(ws); v1.blocks {
					t.Fatal("a 2-D variable took the 3-D block path")
				}
			}
			on := matchBothPaths(t, ws, rs)
			if (tc.over > 0 || tc.sh[0] < 0) != (len(on.Uncovered) > 0) {
				t.Errorf("%d uncovered reads", len(on.Uncovered))
			}
			if err := checkSchedule(ws, rs, on); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestQueryBlocks3 compares the block query with a scan, in row-major cell
// order, over queries inside, across, between and outside the boxes.
func TestQueryBlocks3(t *testing.T) {
	// Boxes of 3 spaced 6 apart: cells hold gaps that queries must skip.
	var ws []Write
	for i := range int64(5) {
		for j := range int64(5) {
			for k := range int64(5) {
				ws = append(ws, Write{Rank: int(i), Box: bx(6*i, 3, 6*j, 3, 6*k, 3)})
			}
		}
	}
	set, err := collectWrites(ws)
	if err != nil {
		t.Fatal(err)
	}
	vw := set.vars[0]
	x := vw.buildIndex(ws)
	if !vw.blocks {
		t.Fatal("a block decomposition did not take the block path")
	}
	rng := rand.New(rand.NewPCG(8, 9))
	var got []int32
	for range 2000 {
		var lo, hi [3]int64
		for k := range 3 {
			lo[k] = rng.Int64N(34) - 3
			hi[k] = lo[k] + 1 + rng.Int64N(8)
		}
		got = x.queryBlocks3(&lo, &hi, got[:0])
		var want []int32
		for i := range int32(len(ws)) {
			if x.overlaps(i, lo[:], hi[:]) {
				want = append(want, i)
			}
		}
		// Writes are in row-major block order, as the cells.
		if !slices.Equal(got, want) {
			t.Fatalf("query %v %v: got %v, want %v", lo, hi, got, want)
		}
	}
}

// TestBlockPathHugeBlocks checks the block path on blocks whose volumes
// overflow int64 (overlap volumes saturate, so reads are checked by
// subtraction): the schedule of the general path, and the half blocks that
// reads past the edge miss reported exactly.
func TestBlockPathHugeBlocks(t *testing.T) {
	defer func(old bool) { blockPath = old }(blockPath)
	defer func(old int) { listMax = old }(listMax)
	listMax = 1
	const side, base = int64(1) << 40, int64(1) << 50
	var ws []Write
	var rs []Read
	for i := range int64(3) {
		for j := range int64(3) {
			for k := range int64(3) {
				blk := (i*3+j)*3 + k
				ws = append(ws, Write{Rank: int(blk), Seq: blk, Box: bx(base+i*side, side, base+j*side, side, base+k*side, side)})
				// Shifted by half a block along k: the last reads pass the edge.
				rs = append(rs, Read{Rank: int(blk % 4), ID: blk, Box: bx(base+i*side, side, base+j*side, side, base+k*side+side/2, side)})
			}
		}
	}
	blockPath = true
	set, err := collectWrites(ws)
	if err != nil {
		t.Fatal(err)
	}
	vw := set.vars[0]
	if vw.idx = vw.buildIndex(ws); !vw.blocks {
		t.Fatal("huge blocks did not take the block path")
	}
	on := matchBothPaths(t, ws, rs)
	if on.Len() != 45 {
		t.Errorf("%d transfers, want 45 (two per read, one for each of the 9 reads at the edge)", on.Len())
	}
	if len(on.Uncovered) != 9 {
		t.Errorf("%d uncovered reads, want 9", len(on.Uncovered))
	}
	for _, u := range on.Uncovered {
		want := bx(u.Missing[0].Start[0], side, u.Missing[0].Start[1], side, base+3*side, side/2)
		if len(u.Missing) != 1 || !u.Missing[0].Equal(want) {
			t.Errorf("read %d misses %v, want %v", u.ReadID, u.Missing, want)
		}
	}
}

// matchBothPaths matches ws and rs with the block path on, then off, and
// reports any difference between the two schedules' transfers or
// uncovered reads; it returns the block path's schedule.
func matchBothPaths(t *testing.T, ws []Write, rs []Read) Schedule {
	t.Helper()
	defer func(old bool) { blockPath = old }(blockPath)
	blockPath = true
	on, err := Match(ws, rs)
	if err != nil {
		t.Fatal(err)
	}
	blockPath = false
	off, err := Match(ws, rs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := transfersString(on.Transfers()), transfersString(off.Transfers()); got != want {
		t.Errorf("block path transfers:\n%s\ngeneral path:\n%s", got, want)
	}
	if got, want := uncoveredString(on.Uncovered), uncoveredString(off.Uncovered); got != want {
		t.Errorf("block path uncovered:\n%s\ngeneral path:\n%s", got, want)
	}
	return on
}
