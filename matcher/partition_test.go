package matcher

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

func TestPartitionGrid(t *testing.T) {
	tests := []struct {
		name  string
		m     int
		shape []int64
		want  []int64
	}{
		{"3d on 8", 8, []int64{100, 100, 100}, []int64{2, 2, 2}},
		{"3d on 6", 6, []int64{100, 100, 100}, []int64{3, 2, 1}},
		{"long dim takes more", 4, []int64{1000, 10}, []int64{4, 1}},
		{"record dim never cut", 4, []int64{Unlimited, 64, 64}, []int64{1, 2, 2}},
		{"too small for all", 8, []int64{2, 1}, []int64{2, 1}},
		{"1-D record var whole", 4, []int64{Unlimited}, nil},
		{"one matcher", 1, []int64{10, 10}, []int64{1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPartition(ModeRange, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SetShape(7, tc.shape); err != nil {
				t.Fatal(err)
			}
			if got := p.Grid(7); !slices.Equal(got, tc.want) {
				t.Errorf("Grid = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPartitionSplit(t *testing.T) {
	p, _ := NewPartition(ModeRange, 4)
	if err := p.SetShape(0, []int64{8, 8}); err != nil {
		t.Fatal(err)
	}
	got := p.Split(0, bx(2, 4, 3, 5))
	want := []Piece{
		{Matcher: 0, Box: bx(2, 2, 3, 1)},
		{Matcher: 1, Box: bx(2, 2, 4, 4)},
		{Matcher: 2, Box: bx(4, 2, 3, 1)},
		{Matcher: 3, Box: bx(4, 2, 4, 4)},
	}
	if !slices.EqualFunc(got, want, func(a, b Piece) bool { return a.Matcher == b.Matcher && a.Box.Equal(b.Box) }) {
		t.Errorf("Split = %v, want %v", got, want)
	}
	// Outside the shape: edge blocks take it, nothing is lost.
	got = p.Split(1+4, bx(-3, 20, 0, 1)) // var 5 has no shape: whole to 5%4
	if len(got) != 1 || got[0].Matcher != 1 {
		t.Errorf("Split of unknown var = %v", got)
	}
	got = p.Split(0, bx(-3, 20, 9, 2))
	want = []Piece{{Matcher: 1, Box: bx(-3, 7, 9, 2)}, {Matcher: 3, Box: bx(4, 13, 9, 2)}}
	if !slices.EqualFunc(got, want, func(a, b Piece) bool { return a.Matcher == b.Matcher && a.Box.Equal(b.Box) }) {
		t.Errorf("Split outside = %v, want %v", got, want)
	}
	if got := p.Split(0, bx(0, 0, 0, 4)); got != nil {
		t.Errorf("Split of empty box = %v", got)
	}
	v, _ := NewPartition(ModeVarID, 3)
	if got := v.Split(-4, bx(0, 8)); len(got) != 1 || got[0].Matcher != 2 {
		t.Errorf("varid Split = %v", got)
	}
}

// TestRangePartitionWidth checks the iodb_range cut: blocks of a fixed width along
// the first fixed dimension, dealt to the matchers in turn from the variable id.
func TestRangePartitionWidth(t *testing.T) {
	p, err := NewRangePartition(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetShape(1, []int64{10, 6}); err != nil {
		t.Fatal(err)
	}
	if err := p.SetShape(2, []int64{Unlimited, 9, 5}); err != nil {
		t.Fatal(err)
	}
	if g := p.Grid(1); !slices.Equal(g, []int64{3, 1}) {
		t.Errorf("Grid(1) = %v, want [3 1]", g)
	}
	if g := p.Grid(2); !slices.Equal(g, []int64{1, 3, 1}) {
		t.Errorf("Grid(2) = %v, want [1 3 1] (record dimension skipped)", g)
	}
	eq := func(a, b Piece) bool { return a.Matcher == b.Matcher && a.Box.Equal(b.Box) }
	// var 1: rows 0-3 -> matcher 1, 4-7 -> 2, 8-9 -> 0.
	got := p.Split(1, bx(2, 8, 1, 2))
	want := []Piece{{Matcher: 1, Box: bx(2, 2, 1, 2)}, {Matcher: 2, Box: bx(4, 4, 1, 2)}, {Matcher: 0, Box: bx(8, 2, 1, 2)}}
	if !slices.EqualFunc(got, want, eq) {
		t.Errorf("Split(1) = %v, want %v", got, want)
	}
	got = p.Split(2, bx(5, 1, 3, 3, 0, 5))
	want = []Piece{{Matcher: 2, Box: bx(5, 1, 3, 1, 0, 5)}, {Matcher: 0, Box: bx(5, 1, 4, 2, 0, 5)}}
	if !slices.EqualFunc(got, want, eq) {
		t.Errorf("Split(2) = %v, want %v", got, want)
	}
	if _, err := NewRangePartition(3, 0); err == nil {
		t.Error("NewRangePartition with width 0 succeeded")
	}
}

func TestPartitionErrors(t *testing.T) {
	if _, err := NewPartition(ModeRange, 0); err == nil {
		t.Error("NewPartition(0) succeeded")
	}
	if _, err := ParseMode("ranges"); err == nil {
		t.Error(`ParseMode("ranges") succeeded`)
	}
	if m, err := ParseMode("varid"); err != nil || m != ModeVarID || m.String() != "varid" {
		t.Errorf("ParseMode(varid) = %v, %v", m, err)
	}
	p, _ := NewPartition(ModeRange, 2)
	if err := p.SetShape(0, []int64{4, Unlimited}); err == nil {
		t.Error("unlimited dimension 1 accepted")
	}
}

// TestDistributedEqualsGlobal splits random requests with random partitions,
// matches each matcher's pieces on its own and checks the merged result with
// brute force: coverage must equal global matching.
func TestDistributedEqualsGlobal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 1500 {
		d := 1 + iter%4
		l := []int64{0, 24, 10, 6, 4}[d]
		nvars := 1 + rng.IntN(3)
		ws, rs := randomCase(rng, d, l, rng.IntN(40), rng.IntN(8), nvars)
		mode := Mode(rng.IntN(2))
		m := 1 + rng.IntN(8)
		p, err := NewPartition(mode, m)
		if mode == ModeRange && iter%3 == 0 {
			p, err = NewRangePartition(m, 1+rng.Int64N(l+1))
		}
		if err != nil {
			t.Fatal(err)
		}
		for v := range nvars {
			shape := make([]int64, d)
			for k := range shape {
				shape[k] = 1 + rng.Int64N(l+2) // sometimes smaller than the data
			}
			if rng.IntN(3) == 0 {
				shape[0] = Unlimited
			}
			if err := p.SetShape(v, shape); err != nil {
				t.Fatal(err)
			}
		}
		ms := make([]Matcher, m)
		for _, w := range ws {
			for _, pc := range p.Split(w.Var, w.Box) {
				w2 := w
				w2.Box = pc.Box
				if err := ms[pc.Matcher].AddWrite(w2); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, r := range rs {
			for _, pc := range p.Split(r.Var, r.Box) {
				r2 := r
				r2.Box = pc.Box
				if err := ms[pc.Matcher].AddRead(r2); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Together the matchers' schedules serve every read exactly once.
		var ts []Transfer
		var us []Uncovered
		for i := range ms {
			s, err := ms[i].Match()
			if err != nil {
				t.Fatal(err)
			}
			ts, us = append(ts, s.Transfers()...), append(us, s.Uncovered...)
		}
		slices.SortStableFunc(ts, func(a, b Transfer) int { return a.Writer - b.Writer })
		if err := checkTransfers(ws, rs, ts, us); err != nil {
			t.Fatalf("iter %d (%v, %d matchers): %v", iter, mode, m, err)
		}
	}
}

func TestMsgpackRoundTrip(t *testing.T) {
	s, err := Match(grid2x2, []Read{{Rank: 1, ID: 3, Box: bx(1, 4, 1, 4)}, {Rank: 2, Var: 9, ID: 4, Box: bx(0, 1, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	// Transfers and uncovered reads are what matchers send.
	for _, v := range []any{s.Transfers(), s.Uncovered} {
		data, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		switch v := v.(type) {
		case []Transfer:
			var back []Transfer
			if err := msgpack.Unmarshal(data, &back); err != nil || transfersString(back) != transfersString(v) {
				t.Errorf("transfers round trip: %v\n%s", err, transfersString(back))
			}
		case []Uncovered:
			var back []Uncovered
			if err := msgpack.Unmarshal(data, &back); err != nil || uncoveredString(back) != uncoveredString(v) {
				t.Errorf("uncovered round trip: %v\n%s", err, uncoveredString(back))
			}
		}
	}
	// Writes and reads are what matchers receive.
	data, err := msgpack.Marshal(grid2x2)
	if err != nil {
		t.Fatal(err)
	}
	var ws []Write
	if err := msgpack.Unmarshal(data, &ws); err != nil {
		t.Fatal(err)
	}
	if len(ws) != 4 || !ws[3].Box.Equal(grid2x2[3].Box) || ws[3].Rank != 3 || ws[3].Seq != 1 {
		t.Errorf("writes round trip: %v", ws)
	}
}

// TestSplitFunc checks that SplitFunc yields Split's pieces in Split's order
// when its pieces are copied, that they tile the box and leave it unchanged, over partitions of every kind, boxes inside,
// across and outside the shapes, empty boxes and variables without a shape.
func TestSplitFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	byMatchers, _ := NewPartition(ModeRange, 6)
	byWidth, _ := NewRangePartition(3, 5)
	byVar, _ := NewPartition(ModeVarID, 4)
	for _, p := range []*Partition{byMatchers, byWidth, byVar} {
		for v, shape := range [][]int64{{12, 9, 20}, {Unlimited, 16}, {7}} {
			if err := p.SetShape(v, shape); err != nil {
				t.Fatal(err)
			}
		}
		for range 500 {
			v := rng.IntN(4) // variable 3 has no shape
			d := 1 + rng.IntN(3)
			b := Box{Start: make([]int64, d), Count: make([]int64, d)}
			for k := range d {
				b.Start[k], b.Count[k] = rng.Int64N(30)-5, rng.Int64N(15)
			}
			orig := b.Clone()
			var got []Piece
			p.SplitFunc(v, b, func(m int, pc Box) { got = append(got, Piece{Matcher: m, Box: pc.Clone()}) })
			want := p.Split(v, b)
			if !slices.EqualFunc(got, want, func(a, b Piece) bool { return a.Matcher == b.Matcher && a.Box.Equal(b.Box) }) {
				t.Fatalf("%v var %d box %v: SplitFunc %v, Split %v", p.Mode(), v, b, got, want)
			}
			if !b.Equal(orig) {
				t.Fatalf("SplitFunc changed the box %v to %v", orig, b)
			}
			// The pieces tile the box.
			var vol int64
			for i, pc := range got {
				vol += pc.Box.Volume()
				if !b.Contains(pc.Box) || pc.Box.Empty() || pc.Matcher < 0 || pc.Matcher >= p.Matchers() {
					t.Fatalf("box %v: piece %v", b, pc)
				}
				for _, o := range got[:i] {
					if o.Box.Overlaps(pc.Box) {
						t.Fatalf("box %v: pieces %v and %v overlap", b, o, pc)
					}
				}
			}
			if vol != b.Volume() {
				t.Fatalf("box %v: pieces %v hold %d elements", b, got, vol)
			}
		}
	}
}
