package matcher

import (
	"math"
	"slices"
	"testing"
)

// bx builds a box from alternating start, count pairs per dimension.
func bx(sc ...int64) Box {
	b := Box{Start: []int64{}, Count: []int64{}}
	for i := 0; i < len(sc); i += 2 {
		b.Start = append(b.Start, sc[i])
		b.Count = append(b.Count, sc[i+1])
	}
	return b
}

func boxesEqual(a, b []Box) bool {
	return slices.EqualFunc(a, b, func(x, y Box) bool { return x.Equal(y) })
}

func TestBoxBasics(t *testing.T) {
	tests := []struct {
		name   string
		b      Box
		dims   int
		empty  bool
		volume int64
		str    string
	}{
		{"scalar", bx(), 0, false, 1, "[]"},
		{"1d", bx(3, 4), 1, false, 4, "[3:7)"},
		{"2d", bx(0, 4, 2, 4), 2, false, 16, "[0:4,2:6)"},
		{"zero count", bx(0, 4, 2, 0), 2, true, 0, "[0:4,2:2)"},
		{"saturating", bx(0, math.MaxInt64/2, 0, 4), 2, false, math.MaxInt64, "[0:4611686018427387903,0:4)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.Dims(); got != tc.dims {
				t.Errorf("Dims = %d, want %d", got, tc.dims)
			}
			if got := tc.b.Empty(); got != tc.empty {
				t.Errorf("Empty = %v, want %v", got, tc.empty)
			}
			if got := tc.b.Volume(); got != tc.volume {
				t.Errorf("Volume = %d, want %d", got, tc.volume)
			}
			if got := tc.b.String(); got != tc.str {
				t.Errorf("String = %q, want %q", got, tc.str)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		b  Box
		ok bool
	}{
		{bx(0, 1, 5, 0), true},
		{Box{Start: []int64{1}, Count: nil}, false},
		{bx(0, -1), false},
		{bx(math.MaxInt64-1, 2), false},
		{bx(math.MaxInt64-1, 1), true},
	}
	for _, tc := range tests {
		if err := tc.b.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(%v) = %v, want ok=%v", tc.b, err, tc.ok)
		}
	}
}

func TestContainsEqualIntersect(t *testing.T) {
	tests := []struct {
		a, b     Box
		contains bool
		equal    bool
		inter    Box
		ok       bool
	}{
		{bx(0, 4, 0, 4), bx(1, 2, 1, 2), true, false, bx(1, 2, 1, 2), true},
		{bx(0, 4, 0, 4), bx(2, 4, 2, 4), false, false, bx(2, 2, 2, 2), true},
		{bx(0, 4, 0, 4), bx(4, 4, 0, 4), false, false, Box{}, false},
		{bx(0, 4), bx(0, 4), true, true, bx(0, 4), true},
		{bx(0, 4), bx(0, 4, 0, 1), false, false, Box{}, false},
		{bx(0, 4), bx(2, 0), true, false, Box{}, false},
		{bx(), bx(), true, true, bx(), true},
	}
	for _, tc := range tests {
		if got := tc.a.Contains(tc.b); got != tc.contains {
			t.Errorf("%v.Contains(%v) = %v", tc.a, tc.b, got)
		}
		if got := tc.a.Equal(tc.b); got != tc.equal {
			t.Errorf("%v.Equal(%v) = %v", tc.a, tc.b, got)
		}
		got, ok := Intersect(tc.a, tc.b)
		if ok != tc.ok || (ok && !got.Equal(tc.inter)) {
			t.Errorf("Intersect(%v, %v) = %v, %v; want %v, %v", tc.a, tc.b, got, ok, tc.inter, tc.ok)
		}
	}
}

func TestSubtract(t *testing.T) {
	tests := []struct {
		name string
		a, b Box
		want []Box
	}{
		{"disjoint", bx(0, 4), bx(4, 2), []Box{bx(0, 4)}},
		{"covered", bx(1, 2), bx(0, 4), nil},
		{"middle 1d", bx(0, 10), bx(3, 2), []Box{bx(0, 3), bx(5, 5)}},
		{"center 2d", bx(0, 3, 0, 3), bx(1, 1, 1, 1), []Box{
			bx(0, 1, 0, 3), bx(2, 1, 0, 3), bx(1, 1, 0, 1), bx(1, 1, 2, 1)}},
		{"corner 2d", bx(0, 4, 0, 4), bx(2, 4, 2, 4), []Box{bx(0, 2, 0, 4), bx(2, 2, 0, 2)}},
		{"corner 3d", bx(0, 2, 0, 2, 0, 2), bx(1, 1, 1, 1, 1, 1), []Box{
			bx(0, 1, 0, 2, 0, 2), bx(1, 1, 0, 1, 0, 2), bx(1, 1, 1, 1, 0, 1)}},
		{"scalar", bx(), bx(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Subtract(tc.a, tc.b); !boxesEqual(got, tc.want) {
				t.Errorf("Subtract(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestCoalesce(t *testing.T) {
	tests := []struct {
		name string
		in   []Box
		want []Box
	}{
		{"empty", nil, []Box{}},
		{"drops empty", []Box{bx(0, 0), bx(1, 2)}, []Box{bx(1, 2)}},
		{"1d run", []Box{bx(4, 2), bx(0, 2), bx(2, 2)}, []Box{bx(0, 6)}},
		{"1d gap", []Box{bx(4, 2), bx(0, 2)}, []Box{bx(0, 2), bx(4, 2)}},
		{"2x2 quad", []Box{bx(2, 2, 2, 2), bx(0, 2, 2, 2), bx(2, 2, 0, 2), bx(0, 2, 0, 2)}, []Box{bx(0, 4, 0, 4)}},
		{"L shape stays two", []Box{bx(0, 2, 0, 4), bx(2, 2, 0, 2)}, []Box{bx(0, 2, 0, 4), bx(2, 2, 0, 2)}},
		{"slabs of a hole refill", append(Subtract(bx(0, 3, 0, 3), bx(1, 1, 1, 1)), bx(1, 1, 1, 1)), []Box{bx(0, 3, 0, 3)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Coalesce(tc.in); !boxesEqual(got, tc.want) {
				t.Errorf("Coalesce(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
