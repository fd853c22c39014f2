package matcher

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDivisor compares divisor.div with the hardware division on edge
// values of x and d and on random pairs.
func TestDivisor(t *testing.T) {
	edges := []uint64{0, 1, 2, 3, 7, 8, 9, 1000, 1 << 31, 1<<32 - 1, 1 << 32, 1<<32 + 1,
		1<<53 + 1, math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64 - 1, math.MaxUint64}
	check := func(x, d uint64) {
		if got, want := newDivisor(d).div(x), x/d; got != want {
			t.Fatalf("%d / %d = %d, want %d", x, d, got, want)
		}
	}
	for _, d := range edges {
		if d == 0 {
			continue
		}
		for _, x := range edges {
			check(x, d)
			check(x-1, d)
			check(x+d, d)
			check(x*d, d)
			check(x*d-1, d)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		x, d := rng.Uint64()>>rng.IntN(64), rng.Uint64()>>rng.IntN(64)
		if d == 0 {
			d = 1
		}
		check(x, d)
	}
}
