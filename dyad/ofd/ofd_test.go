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
