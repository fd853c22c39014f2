package transport

import (
	"errors"
	"testing"
	"time"
)

// fakePending completes after a number of Tests, with err.
type fakePending struct {
	left  int // Tests still reporting not done
	err   error
	tests int
}

func (p *fakePending) Test() (bool, error) {
	p.tests++
	if p.left > 0 {
		p.left--
		return false, nil
	}
	return true, p.err
}

func (p *fakePending) Cancel() error { return nil }

// plain is a Transport without a Driver; only Drive's type check uses it.
type plain struct{ Transport }

// driving is a Transport with a Driver that records its call.
type driving struct {
	plain
	n      int
	budget time.Duration
	watch  int
}

func (d *driving) Drive(ps []Pending, budget time.Duration, watch int) (bool, error) {
	d.n, d.budget, d.watch = len(ps), budget, watch
	return false, errBoom
}

var errBoom = errors.New("boom")

func TestDriveFallback(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	tests := []struct {
		name  string
		left  []int   // per pending: Tests before done
		errs  []error // per pending: its outcome
		done  bool
		err   error
		tests []int // Tests each pending saw
	}{
		{name: "empty", done: true},
		{name: "all done", left: []int{0, 0, 0}, errs: make([]error, 3), done: true, tests: []int{1, 1, 1}},
		{name: "stops at first not done", left: []int{0, 1, 0}, errs: make([]error, 3), tests: []int{1, 1, 0}},
		{name: "first not done", left: []int{2, 0}, errs: make([]error, 2), tests: []int{1, 0}},
		{name: "error counts as done", left: []int{0, 0}, errs: []error{errA, nil}, done: true, err: errA, tests: []int{1, 1}},
		{name: "first error kept", left: []int{0, 0, 0}, errs: []error{nil, errA, errB}, done: true, err: errA, tests: []int{1, 1, 1}},
		{name: "error then not done", left: []int{0, 3}, errs: []error{errA, nil}, err: errA, tests: []int{1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := make([]*fakePending, len(tc.left))
			ps := make([]Pending, len(tc.left))
			for i := range fs {
				fs[i] = &fakePending{left: tc.left[i], err: tc.errs[i]}
				ps[i] = fs[i]
			}
			done, err := Drive(plain{}, ps, time.Millisecond, 1)
			if done != tc.done || !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("Drive = %v, %v; want %v, %v", done, err, tc.done, tc.err)
			}
			for i, f := range fs {
				if f.tests != tc.tests[i] {
					t.Errorf("pending %d tested %d times, want %d", i, f.tests, tc.tests[i])
				}
			}
		})
	}
}

// TestDriveRepeated completes a set by calling Drive until done, as the
// engine does: completed pendings are tested again and stay done.
func TestDriveRepeated(t *testing.T) {
	fs := []*fakePending{{left: 0}, {left: 2}, {left: 1}}
	ps := []Pending{fs[0], fs[1], fs[2]}
	calls := 0
	for {
		done, err := Drive(plain{}, ps, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if done {
			break
		}
		if calls > 10 {
			t.Fatal("set never completed")
		}
	}
	if calls != 4 { // f1 needs 3 passes, then f2 one more
		t.Errorf("took %d calls, want 4", calls)
	}
}

// TestDriveUsesDriver checks that a Transport's own Driver takes over.
func TestDriveUsesDriver(t *testing.T) {
	d := &driving{}
	f := &fakePending{}
	done, err := Drive(d, []Pending{f, f}, 3*time.Millisecond, 7)
	if done || err != errBoom {
		t.Fatalf("Drive = %v, %v; want the Driver's false, boom", done, err)
	}
	if d.n != 2 || d.budget != 3*time.Millisecond || d.watch != 7 {
		t.Errorf("Driver saw %d pendings, budget %v, watch %d", d.n, d.budget, d.watch)
	}
	if f.tests != 0 {
		t.Errorf("fallback ran too: %d Tests", f.tests)
	}
}
