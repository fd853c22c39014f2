package main

import "testing"

func TestProcGrid(t *testing.T) {
	cases := []struct{ n, py, px int }{
		{1, 1, 1}, {2, 1, 2}, {3, 1, 3}, {4, 2, 2}, {6, 2, 3}, {8, 2, 4}, {9, 3, 3}, {12, 3, 4},
	}
	for _, c := range cases {
		if py, px := procGrid(c.n); py != c.py || px != c.px {
			t.Errorf("procGrid(%d) = %dx%d, want %dx%d", c.n, py, px, c.py, c.px)
		}
	}
}

func TestSplit(t *testing.T) {
	cases := []struct {
		n     int64
		p     int
		start []int64
		count []int64
	}{
		{64, 3, []int64{0, 21, 42}, []int64{21, 21, 22}},
		{200, 3, []int64{0, 66, 133}, []int64{66, 67, 67}},
		{512, 2, []int64{0, 256}, []int64{256, 256}},
		{5, 5, []int64{0, 1, 2, 3, 4}, []int64{1, 1, 1, 1, 1}},
	}
	for _, c := range cases {
		for i := range c.p {
			s, n := split(c.n, c.p, i)
			if s != c.start[i] || n != c.count[i] {
				t.Errorf("split(%d, %d, %d) = %d+%d, want %d+%d", c.n, c.p, i, s, n, c.start[i], c.count[i])
			}
		}
	}
}
