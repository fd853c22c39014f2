package dtf

import (
	"strings"
	"testing"
)

// TestTagLayout fits the data tags under the bounds MPIs report: the
// standard's least (32767), Intel MPI's, Open MPI's UCX PML's and ob1's.
// Every data tag must lie in (tagCtl, ub], and slots and ids must map to
// distinct tags.
func TestTagLayout(t *testing.T) {
	for _, c := range []struct {
		ub         int
		files, ids int
		err        string
	}{
		{ub: 32767, files: 4, ids: 8191},
		{ub: 524287, files: 16, ids: 32767},
		{ub: 8388607, files: 64, ids: 131071},
		{ub: 1<<31 - 1, files: 256, ids: 1 << 22},
		{ub: 1023, files: 2, ids: 511},
		{ub: 255, err: "tag bound 255 is too small: 2 file slots leave 127 transfer ids each"},
		{ub: 1, err: "tag bound 1 leaves no data tags"},
	} {
		l, err := newTagLayout(c.ub)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ub %d: error %v, want one containing %q", c.ub, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ub %d: %v", c.ub, err)
			continue
		}
		if l.Files != c.files || l.IDs != c.ids || l.UB != c.ub {
			t.Errorf("ub %d: layout %+v, want %d files of %d ids", c.ub, l, c.files, c.ids)
		}
		if lo, hi := l.data(0, 0), l.data(l.Files-1, int64(l.IDs-1)); lo <= tagCtl || hi > c.ub {
			t.Errorf("ub %d: data tags span [%d, %d], want within (%d, %d]", c.ub, lo, hi, tagCtl, c.ub)
		}
		// Neighbouring slots and ids never share a tag, and ids wrap.
		if l.data(1, 0) != l.data(0, int64(l.IDs-1))+1 {
			t.Errorf("ub %d: slot 1 starts at %d, want right after slot 0's last id (%d)", c.ub, l.data(1, 0), l.data(0, int64(l.IDs-1)))
		}
		if l.data(2, int64(l.IDs)+5) != l.data(2, 5) || l.data(l.Files+1, 7) != l.data(1, 7) {
			t.Errorf("ub %d: ids and slots do not wrap", c.ub)
		}
	}
}

// TestTagsAllDistinctAt32767 walks every data tag of the smallest bound an
// MPI may report and checks each appears once, above the control tag.
func TestTagsAllDistinctAt32767(t *testing.T) {
	l, err := newTagLayout(32767)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[int]bool, l.Files*l.IDs)
	for s := range l.Files {
		for id := range l.IDs {
			tag := l.data(s, int64(id))
			if tag <= tagCtl || tag > 32767 || seen[tag] {
				t.Fatalf("slot %d id %d: tag %d is out of range or repeated", s, id, tag)
			}
			seen[tag] = true
		}
	}
}

// TestPickFileSlot takes the first free slot from the counter on, round the
// slots, and fails when all are busy.
func TestPickFileSlot(t *testing.T) {
	l, _ := newTagLayout(32767) // 4 slots
	for _, c := range []struct {
		next int
		busy []int
		want int
		err  bool
	}{
		{next: 0, want: 0},
		{next: 3, want: 3},
		{next: 4, want: 0},
		{next: 1, busy: []int{1, 2}, want: 3},
		{next: 3, busy: []int{3, 0}, want: 1},
		{next: 2, busy: []int{0, 1, 2, 3}, err: true},
	} {
		busy := map[int]bool{}
		for _, b := range c.busy {
			busy[b] = true
		}
		got, err := l.pickFileSlot(c.next, busy)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "4 coupled files are open for writing") {
				t.Errorf("next %d busy %v: got %d, %v; want the all-busy error", c.next, c.busy, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("next %d busy %v: got %d, %v; want %d", c.next, c.busy, got, err, c.want)
		}
	}
}

// TestTransferIDWraps hands out ids at a bound of 32767 past the slot's end:
// they interleave the matchers, wrap, skip ids in use in the epoch, and fail
// once an epoch has used them all.
func TestTransferIDWraps(t *testing.T) {
	l, _ := newTagLayout(32767) // 8191 ids: 2730 per matcher of 3
	const nmatch = 3
	for _, c := range []struct {
		name    string
		counter int64
		used    []int64
		self    int
		want    []int64
	}{
		{name: "first", counter: 0, self: 1, want: []int64{1, 4, 7}},
		{name: "wraps", counter: 2729, self: 2, want: []int64{8189, 2, 5}},
		{name: "skips used", counter: 2729, self: 0, used: []int64{0, 6}, want: []int64{8187, 3, 9}},
	} {
		t.Run(c.name, func(t *testing.T) {
			used := map[int64]bool{}
			for _, u := range c.used {
				used[u] = true
			}
			counter := c.counter
			for i, w := range c.want {
				id, err := l.transferID(&counter, nmatch, c.self, used)
				if err != nil || id != w {
					t.Fatalf("id %d: got %d, %v; want %d", i, id, err, w)
				}
				if tag := l.data(3, id); tag > 32767 {
					t.Fatalf("id %d: tag %d over the bound", id, tag)
				}
			}
		})
	}
	t.Run("exhausted", func(t *testing.T) {
		used, counter := map[int64]bool{}, int64(100)
		for i := range 2730 {
			if _, err := l.transferID(&counter, nmatch, 0, used); err != nil {
				t.Fatalf("id %d: %v", i, err)
			}
		}
		_, err := l.transferID(&counter, nmatch, 0, used)
		if err == nil || !strings.Contains(err.Error(), "an epoch needs more than 2730 transfers at one of 3 matchers: the tag bound 32767") {
			t.Fatalf("2731st id: %v, want the exhausted error", err)
		}
	})
}
