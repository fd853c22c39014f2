package matcher

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// tr is shorthand for an expected transfer.
func tr(writer, reader int, v int, id, seq int64, b Box) Transfer {
	return Transfer{Writer: writer, Reader: reader, Var: v, ReadID: id, Seq: seq, Box: b}
}

func transfersString(ts []Transfer) string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprintf("w%d->r%d v%d id%d seq%d %v", t.Writer, t.Reader, t.Var, t.ReadID, t.Seq, t.Box))
	}
	return strings.Join(s, "\n")
}

// checkMatch matches writes against reads and checks the schedule's transfers and
// uncovered reads against want and uncovered exactly, and the schedule against the
// brute-force checker; it returns the schedule for further checks.
func checkMatch(t *testing.T, writes []Write, reads []Read, want []Transfer, uncovered []Uncovered) Schedule {
	t.Helper()
	s, err := Match(writes, reads)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := transfersString(s.Transfers()), transfersString(want); got != want {
		t.Errorf("transfers:\n%s\nwant:\n%s", got, want)
	}
	if got, want := uncoveredString(s.Uncovered), uncoveredString(uncovered); got != want {
		t.Errorf("uncovered:\n%s\nwant:\n%s", got, want)
	}
	if err := checkSchedule(writes, reads, s); err != nil {
		t.Error(err)
	}
	return s
}

func uncoveredString(us []Uncovered) string {
	var s []string
	for _, u := range us {
		s = append(s, u.String())
	}
	return strings.Join(s, "\n")
}

// grid2x2 is a 6x6 variable written by ranks 0..3 as 2x2 blocks of 3x3.
var grid2x2 = []Write{
	{Rank: 0, Var: 0, Seq: 1, Box: bx(0, 3, 0, 3)},
	{Rank: 1, Var: 0, Seq: 1, Box: bx(0, 3, 3, 3)},
	{Rank: 2, Var: 0, Seq: 1, Box: bx(3, 3, 0, 3)},
	{Rank: 3, Var: 0, Seq: 1, Box: bx(3, 3, 3, 3)},
}

func TestMatchExact(t *testing.T) {
	tests := []struct {
		name      string
		writes    []Write
		reads     []Read
		want      []Transfer
		uncovered []Uncovered
	}{
		{
			name:   "2x2 writers to 3x1 readers",
			writes: grid2x2,
			reads: []Read{
				{Rank: 0, Var: 0, ID: 0, Box: bx(0, 2, 0, 6)},
				{Rank: 1, Var: 0, ID: 0, Box: bx(2, 2, 0, 6)},
				{Rank: 2, Var: 0, ID: 0, Box: bx(4, 2, 0, 6)},
			},
			want: []Transfer{
				tr(0, 0, 0, 0, 1, bx(0, 2, 0, 3)),
				tr(0, 1, 0, 0, 1, bx(2, 1, 0, 3)),
				tr(1, 0, 0, 0, 1, bx(0, 2, 3, 3)),
				tr(1, 1, 0, 0, 1, bx(2, 1, 3, 3)),
				tr(2, 1, 0, 0, 1, bx(3, 1, 0, 3)),
				tr(2, 2, 0, 0, 1, bx(4, 2, 0, 3)),
				tr(3, 1, 0, 0, 1, bx(3, 1, 3, 3)),
				tr(3, 2, 0, 0, 1, bx(4, 2, 3, 3)),
			},
		},
		{
			name:   "read spanning a 2x2 group (the original loses the L)",
			writes: grid2x2,
			reads:  []Read{{Rank: 5, Var: 0, ID: 9, Box: bx(1, 4, 1, 4)}},
			want: []Transfer{
				tr(0, 5, 0, 9, 1, bx(1, 2, 1, 2)),
				tr(1, 5, 0, 9, 1, bx(1, 2, 3, 2)),
				tr(2, 5, 0, 9, 1, bx(3, 2, 1, 2)),
				tr(3, 5, 0, 9, 1, bx(3, 2, 3, 2)),
			},
		},
		{
			name: "last write wins, earlier write keeps the rest",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 1, Box: bx(0, 10)},
				{Rank: 1, Var: 0, Seq: 2, Box: bx(3, 4)},
			},
			reads: []Read{{Rank: 0, Var: 0, ID: 1, Box: bx(0, 10)}},
			want: []Transfer{
				tr(0, 0, 0, 1, 1, bx(0, 3)),
				tr(0, 0, 0, 1, 1, bx(7, 3)),
				tr(1, 0, 0, 1, 2, bx(3, 4)),
			},
		},
		{
			name: "same rank rewrites a block: only the later seq is sent",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 7, Box: bx(0, 4, 0, 4)},
				{Rank: 0, Var: 0, Seq: 3, Box: bx(0, 4, 0, 4)},
			},
			reads: []Read{{Rank: 1, Var: 0, ID: 0, Box: bx(1, 2, 1, 2)}},
			want:  []Transfer{tr(0, 1, 0, 0, 7, bx(1, 2, 1, 2))},
		},
		{
			name: "equal seq: higher rank wins",
			writes: []Write{
				{Rank: 2, Var: 0, Seq: 0, Box: bx(0, 4)},
				{Rank: 1, Var: 0, Seq: 0, Box: bx(0, 4)},
			},
			reads: []Read{{Rank: 0, Var: 0, ID: 0, Box: bx(0, 4)}},
			want:  []Transfer{tr(2, 0, 0, 0, 0, bx(0, 4))},
		},
		{
			name: "a later write punches a hole: the remainder is coalesced",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 1, Box: bx(0, 3, 0, 3)},
				{Rank: 1, Var: 0, Seq: 2, Box: bx(1, 1, 1, 1)},
			},
			reads: []Read{{Rank: 0, Var: 0, ID: 0, Box: bx(0, 3, 0, 3)}},
			want: []Transfer{
				tr(0, 0, 0, 0, 1, bx(0, 1, 0, 3)),
				tr(0, 0, 0, 0, 1, bx(1, 1, 0, 1)),
				tr(0, 0, 0, 0, 1, bx(1, 1, 2, 1)),
				tr(0, 0, 0, 0, 1, bx(2, 1, 0, 3)),
				tr(1, 0, 0, 0, 2, bx(1, 1, 1, 1)),
			},
		},
		{
			name: "unwritten corner is uncovered, the rest is served",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 0, Box: bx(0, 2, 0, 4)},
				{Rank: 1, Var: 0, Seq: 0, Box: bx(2, 2, 0, 2)},
			},
			reads: []Read{{Rank: 3, Var: 0, ID: 4, Box: bx(1, 3, 1, 3)}},
			want: []Transfer{
				tr(0, 3, 0, 4, 0, bx(1, 1, 1, 3)),
				tr(1, 3, 0, 4, 0, bx(2, 2, 1, 1)),
			},
			uncovered: []Uncovered{{Reader: 3, Var: 0, ReadID: 4, Missing: []Box{bx(2, 2, 2, 2)}}},
		},
		{
			name:      "read start corner never written (the original hangs)",
			writes:    []Write{{Rank: 0, Var: 0, Seq: 0, Box: bx(4, 4)}},
			reads:     []Read{{Rank: 0, Var: 0, ID: 0, Box: bx(0, 8)}},
			want:      []Transfer{tr(0, 0, 0, 0, 0, bx(4, 4))},
			uncovered: []Uncovered{{Reader: 0, Var: 0, ReadID: 0, Missing: []Box{bx(0, 4)}}},
		},
		{
			name:      "variable without writes",
			writes:    []Write{{Rank: 0, Var: 1, Seq: 0, Box: bx(0, 4)}},
			reads:     []Read{{Rank: 0, Var: 2, ID: 0, Box: bx(0, 4)}},
			uncovered: []Uncovered{{Reader: 0, Var: 2, ReadID: 0, Missing: []Box{bx(0, 4)}}},
		},
		{
			name: "scalars and variables are kept apart",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 0, Box: bx()},
				{Rank: 1, Var: 1, Seq: 0, Box: bx(0, 2)},
			},
			reads: []Read{
				{Rank: 2, Var: 0, ID: 0, Box: bx()},
				{Rank: 2, Var: 1, ID: 1, Box: bx(1, 1)},
				{Rank: 2, Var: 1, ID: 2, Box: bx(1, 0)},
			},
			want: []Transfer{
				tr(0, 2, 0, 0, 0, bx()),
				tr(1, 2, 1, 1, 0, bx(1, 1)),
			},
		},
		{
			name: "reads are served in reader, variable, id order",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 0, Box: bx(0, 8)},
			},
			reads: []Read{
				{Rank: 1, Var: 0, ID: 5, Box: bx(0, 1)},
				{Rank: 0, Var: 0, ID: 7, Box: bx(1, 1)},
				{Rank: 1, Var: 0, ID: 2, Box: bx(2, 1)},
			},
			want: []Transfer{
				tr(0, 0, 0, 7, 0, bx(1, 1)),
				tr(0, 1, 0, 2, 0, bx(2, 1)),
				tr(0, 1, 0, 5, 0, bx(0, 1)),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkMatch(t, tc.writes, tc.reads, tc.want, tc.uncovered)
		})
	}
}

func TestMatchErrors(t *testing.T) {
	tests := []struct {
		name   string
		writes []Write
		reads  []Read
		want   string
	}{
		{"write dims differ", []Write{{Var: 3, Box: bx(0, 1)}, {Var: 3, Box: bx(0, 1, 0, 1)}}, nil, "variable 3"},
		{"read dims differ", []Write{{Var: 3, Box: bx(0, 1)}}, []Read{{Var: 3, ID: 8, Box: bx(0, 1, 0, 1)}}, "read 8"},
		{"malformed write", []Write{{Var: 1, Box: bx(0, -1)}}, nil, "negative count"},
		{"malformed read", nil, []Read{{Var: 1, Box: Box{Start: []int64{0}}}}, "1 starts but 0 counts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Match(tc.writes, tc.reads)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestMatcherIncremental(t *testing.T) {
	m := NewMatcher()
	for _, w := range grid2x2 {
		if err := m.AddWrite(w); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.AddRead(Read{Rank: 1, ID: 0, Box: bx(0, 6, 2, 2)}); err != nil {
		t.Fatal(err)
	}
	if err := m.AddRead(Read{Rank: 1, ID: 1, Box: bx(0, -6, 2, 2)}); err == nil {
		t.Error("AddRead accepted a negative count")
	}
	if w, r := m.Len(); w != 4 || r != 1 {
		t.Fatalf("Len = %d, %d", w, r)
	}
	s, err := m.Match()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSchedule(grid2x2, m.reads, s); err != nil {
		t.Fatal(err)
	}
	if got := s.Writers(); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("Writers = %v", got)
	}
	if got := s.Readers(); !slices.Equal(got, []int{1}) {
		t.Errorf("Readers = %v", got)
	}
	if got := transfersString(s.ForWriter(2)); got != "w2->r1 v0 id0 seq1 [3:6,2:3)" {
		t.Errorf("ForWriter(2) = %s", got)
	}
	if got := s.ForWriter(9); len(got) != 0 {
		t.Errorf("ForWriter(9) = %v", got)
	}
	if br := s.ByReader(); len(br) != 1 || len(br[1]) != 4 {
		t.Errorf("ByReader sizes %d", len(br))
	}
	if br := s.ByReader(); transfersString(br[1]) != transfersString(s.Transfers()) {
		t.Errorf("ByReader order differs:\n%s", transfersString(br[1]))
	}
	m.Reset()
	if w, r := m.Len(); w != 0 || r != 0 {
		t.Errorf("after Reset Len = %d, %d", w, r)
	}
}

// TestMatchRandom compares matching with per-element brute force on random
// boxes in 1 to 4 dimensions.
func TestMatchRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	defer func(old int) { listMax = old }(listMax)
	for iter := range 3000 {
		listMax = []int{32, 1, 3}[iter%3] // also exercise grids on small inputs
		d := 1 + iter%4
		l := []int64{0, 24, 10, 6, 4}[d]
		ws, rs := randomCase(rng, d, l, rng.IntN(60), rng.IntN(10), 1+rng.IntN(2))
		s, err := Match(ws, rs)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSchedule(ws, rs, s); err != nil {
			t.Fatalf("iter %d: %v\nwrites %v\nreads %v", iter, err, ws, rs)
		}
	}
}

// TestIndexManyLevels forces boxes of very different sizes through the
// index and checks queries against a scan.
func TestIndexManyLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d, n = 2, 3000
	box := make([]int64, 2*n*d)
	for i := range n {
		size := int64(1) << rng.IntN(12)
		for k := range d {
			box[2*i*d+k] = rng.Int64N(1 << 14)
			box[2*i*d+d+k] = box[2*i*d+k] + 1 + rng.Int64N(size)
		}
	}
	x := newIndex(d, n, box)
	if len(x.levels) < 2 {
		t.Errorf("expected several levels for mixed sizes, got %d", len(x.levels))
	}
	var got []int32
	for range 500 {
		qlo := []int64{rng.Int64N(1 << 14), rng.Int64N(1 << 14)}
		qhi := []int64{qlo[0] + 1 + rng.Int64N(1<<10), qlo[1] + 1 + rng.Int64N(1<<10)}
		got = x.query(qlo, qhi, got[:0])
		slices.Sort(got)
		var want []int32
		for i := range int32(n) {
			if x.overlaps(i, qlo, qhi) {
				want = append(want, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %v %v: got %d ids, want %d", qlo, qhi, len(got), len(want))
		}
	}
}

// Several ranks writing one scalar: the later write wins and nothing hangs.
func TestScalarOverlappingWrites(t *testing.T) {
	scalar := Box{Start: []int64{}, Count: []int64{}}
	ws := []Write{{Rank: 0, Var: 3, Seq: 1, Box: scalar}, {Rank: 1, Var: 3, Seq: 1, Box: scalar}, {Rank: 2, Var: 3, Seq: 2, Box: scalar}}
	rs := []Read{{Rank: 0, Var: 3, ID: 7, Box: scalar}, {Rank: 1, Var: 4, ID: 8, Box: scalar}}
	s, err := Match(ws, rs)
	if err != nil {
		t.Fatal(err)
	}
	if ts := s.Transfers(); len(ts) != 1 || ts[0].Writer != 2 || ts[0].Box.Dims() != 0 || ts[0].ReadID != 7 {
		t.Fatalf("transfers %+v", ts)
	}
	if len(s.Uncovered) != 1 || s.Uncovered[0].Var != 4 || len(s.Uncovered[0].Missing) != 1 || s.Uncovered[0].Missing[0].Dims() != 0 {
		t.Fatalf("uncovered %+v", s.Uncovered)
	}
}
