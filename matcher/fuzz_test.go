package matcher

import "testing"

// fuzzReader hands out bytes of the fuzz input, then zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) next() int {
	if len(r.b) == 0 {
		return 0
	}
	v := int(r.b[0])
	r.b = r.b[1:]
	return v
}

// decodeCase turns fuzz bytes into writes and reads in 1 to 4 dimensions
// with coordinates in [0, l) per dimension.
func decodeCase(data []byte) ([]Write, []Read) {
	r := &fuzzReader{data}
	d := 1 + r.next()%4
	l := []int64{0, 16, 8, 5, 4}[d]
	nw, nr := r.next()%40, 1+r.next()%6
	listMax = []int{32, 1, 2, 4}[r.next()%4] // force grid levels on small inputs
	box := func() Box {
		b := Box{Start: make([]int64, d), Count: make([]int64, d)}
		for k := range d {
			b.Start[k] = int64(r.next()) % l
			b.Count[k] = int64(r.next()) % (l - b.Start[k] + 1)
		}
		return b
	}
	var ws []Write
	for range nw {
		x := r.next()
		ws = append(ws, Write{Rank: x % 4, Var: (x / 4) % 2, Seq: int64(r.next() % 8), Box: box()})
	}
	var rs []Read
	for i := range nr {
		x := r.next()
		rs = append(rs, Read{Rank: x % 3, Var: (x / 4) % 2, ID: int64(i), Box: box()})
	}
	return ws, rs
}

// FuzzMatch checks matching against per-element brute force: exact
// coverage, nothing sent twice, correct winners, exact uncovered parts.
func FuzzMatch(f *testing.F) {
	f.Add([]byte{1, 4, 2, 1, 0, 0, 0, 3, 3, 1, 0, 3, 3, 3, 3, 2, 0, 0, 3, 3, 3, 3, 3, 0, 0, 0, 1, 1, 4, 4})
	f.Add([]byte{0, 2, 1, 2, 0, 1, 0, 10, 1, 2, 3, 4, 0, 0, 16})
	defer func(old int) { listMax = old }(listMax)
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, rs := decodeCase(data)
		s, err := Match(ws, rs)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSchedule(ws, rs, s); err != nil {
			t.Fatalf("%v\nwrites %v\nreads %v", err, ws, rs)
		}
	})
}
