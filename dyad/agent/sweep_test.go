package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/ofd"
)

// TestSweepTemps: a sweep removes exactly the temporary files of stagings that nobody
// holds and that were last written before the agent started; it leaves a held one, a
// newer one, other files, and never follows a link or enters a directory.
func TestSweepTemps(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(outside, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	old := start.Add(-time.Hour)
	tmp := func(s string) string { return dyad.TempPrefix + s }
	type entry struct {
		name  string
		make  func(p string) error
		mtime time.Time
		held  bool
	}
	file := func(p string) error { return os.WriteFile(p, []byte("partial"), 0o600) }
	for _, e := range []entry{
		{name: tmp("crashed.bin-1"), make: file, mtime: old},
		{name: tmp("crashed.bin-2"), make: file, mtime: old},
		{name: tmp("live.bin-3"), make: file, mtime: old, held: true},
		{name: tmp("new.bin-4"), make: file, mtime: start.Add(time.Second)},
		{name: "data.bin", make: file, mtime: old},
		{name: ".tmp-5", make: file, mtime: old},
		{name: tmp("link-6"), make: func(p string) error { return os.Symlink(outside, p) }},
		{name: tmp("dir-7"), make: func(p string) error { return os.Mkdir(p, 0o755) }, mtime: old},
	} {
		p := filepath.Join(dir, e.name)
		if err := e.make(p); err != nil {
			t.Fatal(err)
		}
		if !e.mtime.IsZero() {
			if err := os.Chtimes(p, e.mtime, e.mtime); err != nil {
				t.Fatal(err)
			}
		}
		if e.held {
			// A live staging holds its file's lock through another open file description.
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if got, err := ofd.TryLock(f, true); !got || err != nil {
				t.Fatalf("lock %s: %v %v", e.name, got, err)
			}
		}
	}
	if n := sweepTemps(dir, start); n != 2 {
		t.Errorf("sweep removed %d files, want 2", n)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "keep" {
		t.Errorf("the link's target: %q %v", b, err)
	}
	if n := sweepTemps(filepath.Join(dir, "missing"), start); n != 0 {
		t.Errorf("sweep of a missing directory removed %d", n)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	// Only the two crashed stagings' files went.
	if want := []string{tmp("dir-7"), tmp("link-6"), tmp("live.bin-3"), tmp("new.bin-4"), ".tmp-5", "data.bin"}; !slices.Equal(names, want) {
		t.Errorf("left %v, want %v", names, want)
	}
}

// TestSweptDirsBounded: a directory is swept once while the set remembers it; the set
// never holds more than its max, and a directory it forgot is swept again.
func TestSweptDirsBounded(t *testing.T) {
	s := sweptDirs{max: 3}
	for _, c := range []struct {
		dir   string
		first bool
		size  int
	}{
		{"a", true, 1},
		{"a", false, 1},
		{"b", true, 2},
		{"c", true, 3},
		{"c", false, 3},
		{"d", true, 1}, // full: a, b and c are forgotten
		{"a", true, 2},
		{"d", false, 2},
	} {
		if got := s.first(c.dir); got != c.first || len(s.m) != c.size {
			t.Fatalf("first(%q) = %v with %d remembered, want %v with %d", c.dir, got, len(s.m), c.first, c.size)
		}
	}
}
