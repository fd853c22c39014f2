package replay

import "testing"

func TestSignatureDistinguishes(t *testing.T) {
	sig := func(lists ...[]int64) uint64 {
		s := NewSigner()
		for _, l := range lists {
			s.AddInts(l)
		}
		return s.Sum()
	}
	base := sig([]int64{0, 1, 2}, []int64{3})
	cases := map[string]uint64{
		"same":        sig([]int64{0, 1, 2}, []int64{3}),
		"moved split": sig([]int64{0, 1}, []int64{2, 3}),
		"other value": sig([]int64{0, 1, 2}, []int64{4}),
		"extra list":  sig([]int64{0, 1, 2}, []int64{3}, nil),
	}
	for name, s := range cases {
		if (s == base) != (name == "same") {
			t.Errorf("%s: equal=%v", name, s == base)
		}
	}
}

func TestStore(t *testing.T) {
	s := NewStore[string]()
	k := Key{Section: 1, Slot: 0, Epoch: 2, Round: -1}
	if _, ok := s.Lookup(k, 7); ok {
		t.Fatal("empty store hit")
	}
	s.Put(k, 7, "a")
	if r, ok := s.Lookup(k, 7); !ok || r != "a" {
		t.Fatal("lookup after put")
	}
	if _, ok := s.Lookup(k, 8); ok {
		t.Fatal("wrong signature hit")
	}
	s.Put(k, 8, "b")
	if r, ok := s.Get(k); !ok || r != "b" || s.Len() != 1 {
		t.Fatal("replace")
	}
	// Many cycles over the same keys keep the store flat.
	for cycle := 0; cycle < 1000; cycle++ {
		for e := 0; e < 3; e++ {
			s.Put(Key{Section: 2, Slot: cycle % 2, Epoch: e}, uint64(cycle), "x")
		}
	}
	if s.Len() != 7 {
		t.Fatalf("store grew to %d records", s.Len())
	}
	s.Forget(2)
	if s.Len() != 1 {
		t.Fatalf("forget left %d", s.Len())
	}
}

func TestDecide(t *testing.T) {
	if Decide(false, true) != Off || Decide(true, true) != Hit || Decide(true, false) != Miss || Hit.String() != "hit" {
		t.Fatal("decide")
	}
}
