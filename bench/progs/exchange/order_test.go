package main

import (
	"slices"
	"testing"
)

// TestTurnOrder checks that the warm-up round keeps the modes' order, that every
// round runs each mode once in an order that depends only on the round (every rank
// computes it alone), and that over the rounds no mode always follows the same one.
func TestTurnOrder(t *testing.T) {
	modes := []string{"mpi", "coupled", "replay", "single", "file"}
	if got := turnOrder(modes, 0); !slices.Equal(got, modes) {
		t.Fatalf("warm-up round: %v, want %v", got, modes)
	}
	follows := map[[2]string]int{}
	for rep := 1; rep <= 112; rep++ {
		got := turnOrder(modes, rep)
		if again := turnOrder(modes, rep); !slices.Equal(got, again) {
			t.Fatalf("round %d: %v, then %v", rep, got, again)
		}
		sorted := slices.Sorted(slices.Values(got))
		if !slices.Equal(sorted, slices.Sorted(slices.Values(modes))) {
			t.Fatalf("round %d: %v is not a permutation of %v", rep, got, modes)
		}
		for i := 1; i < len(got); i++ {
			follows[[2]string{got[i-1], got[i]}]++
		}
	}
	if !slices.Equal(modes, []string{"mpi", "coupled", "replay", "single", "file"}) {
		t.Fatalf("turnOrder changed its argument: %v", modes)
	}
	for _, a := range modes {
		for _, b := range modes {
			if a != b && follows[[2]string{a, b}] == 0 {
				t.Errorf("%s never follows %s in 112 rounds", b, a)
			}
		}
	}
}
