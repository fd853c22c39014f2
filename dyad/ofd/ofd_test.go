package ofd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestExclusionWithinProcess(t *testing.T) {
	p := filepath.Join(t.TempDir(), "l")
	a, _ := os.Create(p)
	defer a.Close()
	b, _ := os.Open(p)
	defer b.Close()
	if err := Lock(a, true, time.Second); err != nil {
		t.Fatal(err)
	}
	// A close of another descriptor of the file must not drop a's lock (POSIX locks would).
	c, _ := os.Open(p)
	c.Close()
	if err := Lock(b, false, 100*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("second lock = %v, want ErrTimeout", err)
	}
	Unlock(a)
	if err := Lock(b, false, time.Second); err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	// Shared locks coexist.
	if err := Lock(a, false, time.Second); err != nil {
		t.Fatalf("second shared lock: %v", err)
	}
}

// TestManyWaitersNoThreads holds a lock while 500 waiters time out on it: the waits poll
// without a thread each, so the process's thread count stays near GOMAXPROCS, and no
// descriptor is left open once they are done.
func TestManyWaitersNoThreads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "l")
	holder, _ := os.Create(p)
	defer holder.Close()
	if err := Lock(holder, true, time.Second); err != nil {
		t.Fatal(err)
	}
	fdsBefore := countFDs(t)
	const n = 500
	errs := make(chan error, n)
	var files []*os.File
	for range n {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		go func() { errs <- Lock(f, false, 300*time.Millisecond) }()
	}
	maxThreads := 0
	for range n {
		if err := <-errs; !errors.Is(err, ErrTimeout) {
			t.Fatalf("waiter: %v, want ErrTimeout", err)
		}
		maxThreads = max(maxThreads, threads(t))
	}
	for _, f := range files {
		f.Close()
	}
	if maxThreads > 50 {
		t.Errorf("%d threads while %d waiters waited; a wait must not hold a thread", maxThreads, n)
	}
	if after := countFDs(t); after != fdsBefore {
		t.Errorf("%d descriptors after the waits, %d before", after, fdsBefore)
	}
	// The lock is handed over once released.
	Unlock(holder)
	f, _ := os.Open(p)
	defer f.Close()
	if err := Lock(f, false, time.Second); err != nil {
		t.Fatal(err)
	}
}

func countFDs(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

func threads(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}
