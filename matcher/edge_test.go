package matcher

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestMatchEdges covers what the one-pass write collection and the
// per-writer record lists special-case: empty writes before and between
// others (local and global write indices part), interleaved variables,
// writer ranks first seen out of order or negative, writers that serve
// nothing, priorities out of order, duplicate boxes, boxes that only touch,
// and 0-D requests with nil or empty slices.
func TestMatchEdges(t *testing.T) {
	scalarNil := Box{}
	tests := []struct {
		name      string
		writes    []Write
		reads     []Read
		want      []Transfer
		uncovered []Uncovered
	}{
		{
			name: "empty writes first and between",
			writes: []Write{
				{Rank: 4, Var: 0, Seq: 0, Box: bx(0, 0)},
				{Rank: 1, Var: 0, Seq: 1, Box: bx(0, 4)},
				{Rank: 2, Var: 0, Seq: 2, Box: bx(2, 0)},
				{Rank: 2, Var: 0, Seq: 3, Box: bx(4, 4)},
			},
			reads: []Read{{Rank: 0, Var: 0, ID: 1, Box: bx(2, 4)}},
			want: []Transfer{
				tr(1, 0, 0, 1, 1, bx(2, 2)),
				tr(2, 0, 0, 1, 3, bx(4, 2)),
			},
		},
		{
			name: "interleaved variables",
			writes: []Write{
				{Rank: 0, Var: 1, Seq: 0, Box: bx(0, 4)},
				{Rank: 0, Var: 2, Seq: 0, Box: bx(0, 4, 0, 4)},
				{Rank: 1, Var: 1, Seq: 0, Box: bx(4, 4)},
				{Rank: 1, Var: 2, Seq: 0, Box: bx(4, 4, 0, 4)},
			},
			reads: []Read{
				{Rank: 0, Var: 2, ID: 0, Box: bx(3, 2, 1, 1)},
				{Rank: 0, Var: 1, ID: 0, Box: bx(3, 2)},
			},
			want: []Transfer{
				tr(0, 0, 1, 0, 0, bx(3, 1)),
				tr(0, 0, 2, 0, 0, bx(3, 1, 1, 1)),
				tr(1, 0, 1, 0, 0, bx(4, 1)),
				tr(1, 0, 2, 0, 0, bx(4, 1, 1, 1)),
			},
		},
		{
			name: "writer ranks out of order, negative, recurring; one serves nothing",
			writes: []Write{
				{Rank: 5, Var: 0, Seq: 0, Box: bx(0, 2)},
				{Rank: -3, Var: 0, Seq: 0, Box: bx(2, 2)},
				{Rank: 9, Var: 0, Seq: 0, Box: bx(100, 2)},
				{Rank: 5, Var: 0, Seq: 0, Box: bx(4, 2)},
				{Rank: 0, Var: 0, Seq: 0, Box: bx(6, 2)},
			},
			reads: []Read{{Rank: 1, Var: 0, ID: 0, Box: bx(1, 6)}},
			want: []Transfer{
				tr(-3, 1, 0, 0, 0, bx(2, 2)),
				tr(0, 1, 0, 0, 0, bx(6, 1)),
				tr(5, 1, 0, 0, 0, bx(4, 2)), // later added first: the winner order
				tr(5, 1, 0, 0, 0, bx(1, 1)),
			},
		},
		{
			name: "seq decreasing: the earlier added, higher seq wins",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 5, Box: bx(0, 4)},
				{Rank: 1, Var: 0, Seq: 4, Box: bx(2, 4)},
			},
			reads: []Read{{Rank: 0, Var: 0, ID: 0, Box: bx(0, 6)}},
			want: []Transfer{
				tr(0, 0, 0, 0, 5, bx(0, 4)),
				tr(1, 0, 0, 0, 4, bx(4, 2)),
			},
		},
		{
			name: "equal seq, rank decreasing: the higher rank wins",
			writes: []Write{
				{Rank: 3, Var: 0, Seq: 1, Box: bx(0, 4)},
				{Rank: 2, Var: 0, Seq: 1, Box: bx(2, 4)},
			},
			reads: []Read{{Rank: 0, Var: 0, ID: 0, Box: bx(0, 6)}},
			want: []Transfer{
				tr(2, 0, 0, 0, 1, bx(4, 2)),
				tr(3, 0, 0, 0, 1, bx(0, 4)),
			},
		},
		{
			name: "duplicate writes: the later added wins",
			writes: []Write{
				{Rank: 1, Var: 0, Seq: 2, Box: bx(0, 4)},
				{Rank: 1, Var: 0, Seq: 2, Box: bx(0, 4)},
				{Rank: 0, Var: 0, Seq: 1, Box: bx(0, 8)},
			},
			reads: []Read{{Rank: 0, Var: 0, ID: 1, Box: bx(0, 8)}, {Rank: 0, Var: 0, ID: 0, Box: bx(0, 8)}},
			want: []Transfer{
				tr(0, 0, 0, 0, 1, bx(4, 4)),
				tr(0, 0, 0, 1, 1, bx(4, 4)),
				tr(1, 0, 0, 0, 2, bx(0, 4)),
				tr(1, 0, 0, 1, 2, bx(0, 4)),
			},
		},
		{
			name: "boxes that touch share nothing",
			writes: []Write{
				{Rank: 0, Var: 0, Seq: 9, Box: bx(0, 4, 0, 4)},
				{Rank: 1, Var: 0, Seq: 1, Box: bx(4, 4, 0, 4)},
				{Rank: 2, Var: 0, Seq: 5, Box: bx(0, 4, 4, 4)},
			},
			reads: []Read{
				{Rank: 0, Var: 0, ID: 0, Box: bx(4, 1, 4, 1)},
				{Rank: 0, Var: 0, ID: 1, Box: bx(3, 2, 3, 2)},
			},
			want: []Transfer{
				tr(0, 0, 0, 1, 9, bx(3, 1, 3, 1)),
				tr(1, 0, 0, 1, 1, bx(4, 1, 3, 1)),
				tr(2, 0, 0, 1, 5, bx(3, 1, 4, 1)),
			},
			uncovered: []Uncovered{
				{Reader: 0, Var: 0, ReadID: 0, Missing: []Box{bx(4, 1, 4, 1)}},
				{Reader: 0, Var: 0, ReadID: 1, Missing: []Box{bx(4, 1, 4, 1)}},
			},
		},
		{
			name: "scalars with nil slices; a scalar nobody wrote",
			writes: []Write{
				{Rank: 1, Var: 0, Seq: 0, Box: scalarNil},
				{Rank: 0, Var: 0, Seq: 1, Box: bx()},
			},
			reads: []Read{
				{Rank: 0, Var: 0, ID: 0, Box: scalarNil},
				{Rank: 0, Var: 7, ID: 1, Box: scalarNil},
			},
			want:      []Transfer{tr(0, 0, 0, 0, 1, bx())},
			uncovered: []Uncovered{{Reader: 0, Var: 7, ReadID: 1, Missing: []Box{bx()}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := checkMatch(t, tc.writes, tc.reads, tc.want, tc.uncovered)
			// Missing boxes of scalars are 0-D with empty, not nil, slices.
			for _, u := range s.Uncovered {
				for _, b := range u.Missing {
					if !reflect.DeepEqual(b, bx()) && b.Dims() == 0 {
						t.Errorf("missing scalar box %#v", b)
					}
				}
			}
			for i := range s.Len() {
				if got := s.At(i); transfersString([]Transfer{got}) != transfersString(tc.want[i:i+1]) {
					t.Errorf("At(%d) = %v", i, got)
				}
			}
		})
	}
}

// TestMatchErrorOrder: a malformed box is reported before writes that
// disagree on dimensions, whichever comes first, and before a malformed read
// only if it is a write; requests are never modified.
func TestMatchErrorOrder(t *testing.T) {
	tests := []struct {
		name   string
		writes []Write
		reads  []Read
		want   string
	}{
		{"malformed write after a dims mismatch",
			[]Write{{Var: 0, Box: bx(0, 1)}, {Var: 0, Box: bx(0, 1, 0, 1)}, {Var: 0, Rank: 4, Box: bx(0, -1)}}, nil,
			"write of rank 4, variable 0: matcher: box [0:-1): negative count in dimension 0"},
		{"malformed read after a dims mismatch",
			[]Write{{Var: 0, Box: bx(0, 1)}, {Var: 0, Box: bx(0, 1, 0, 1)}}, []Read{{ID: 3, Box: Box{Start: []int64{1}}}},
			"read 3 of rank 0, variable 0: matcher: box has 1 starts but 0 counts"},
		{"dims mismatch once everything is valid",
			[]Write{{Var: 6, Box: bx(0, 1)}, {Var: 6, Box: bx(0, 1, 0, 1)}, {Var: 6, Box: bx(0, 1, 0, 1, 0, 1)}}, []Read{{ID: 3, Box: bx(0, 1)}},
			"matcher: writes on variable 6 have 1 and 2 dimensions"},
		{"write end overflows",
			[]Write{{Var: 0, Box: bx(1, 1<<62, 1<<62, 1<<62)}}, nil,
			"write of rank 0, variable 0: matcher: box [1:4611686018427387905,4611686018427387904:-9223372036854775808): end overflows in dimension 1"},
		{"read dims differ from an empty write's",
			[]Write{{Var: 0, Box: bx(0, 0, 0, 0)}, {Var: 0, Box: bx(0, 2)}}, []Read{{ID: 2, Box: bx(0, 1, 0, 1)}},
			"matcher: read 2 of rank 0 on variable 0 has 2 dimensions, its writes have 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.writes)
			_, err := Match(tc.writes, tc.reads)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant %s", err, tc.want)
			}
			if !reflect.DeepEqual(before, tc.writes) {
				t.Errorf("writes modified")
			}
		})
	}
}

// TestScheduleChunks matches enough transfers for several record chunks
// per writer and checks that At, All and ForWriter agree.
func TestScheduleChunks(t *testing.T) {
	// Three writers of 1000 one-element writes each (rank 2 first), and
	// reads of two elements that straddle the writes, every tenth read
	// crossing into the next writer's part.
	var ws []Write
	for _, r := range []int{2, 0, 1} {
		for i := range int64(1000) {
			ws = append(ws, Write{Rank: r, Seq: 0, Box: bx(int64(r)*1000+i, 1)})
		}
	}
	var rs []Read
	for i := range int64(1500) {
		rs = append(rs, Read{Rank: int(i % 4), ID: i, Box: bx(2*i+1, 2)})
	}
	s, err := Match(ws, rs)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2999 || len(s.Uncovered) != 1 {
		t.Fatalf("%d transfers, %d uncovered; want 2999, 1", s.Len(), len(s.Uncovered))
	}
	if len(s.segs) < 3*5 {
		t.Fatalf("%d chunks: want several per writer", len(s.segs))
	}
	all := s.Transfers()
	var byWriter []Transfer
	for _, w := range []int{0, 1, 2} {
		byWriter = append(byWriter, s.ForWriter(w)...)
	}
	if transfersString(byWriter) != transfersString(all) {
		t.Fatal("ForWriter over all writers differs from All")
	}
	for i := range all {
		if got := s.At(i); transfersString([]Transfer{got}) != transfersString(all[i:i+1]) {
			t.Fatalf("At(%d) = %v, All has %v", i, got, all[i])
		}
	}
	if len(s.ForWriter(3)) != 0 || len(s.ForWriter(-1)) != 0 {
		t.Error("ForWriter of a rank that wrote nothing is not empty")
	}
	if err := checkSchedule(ws, rs, s); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, s.Len()} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "out of range") {
					t.Errorf("At(%d): recovered %v", i, r)
				}
			}()
			s.At(i)
		}()
	}
}
