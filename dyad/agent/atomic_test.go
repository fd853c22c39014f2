package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAtomicWrite: a file written through writeAtomic replaces an older one whole, with
// no temporary file left; a directory that cannot be made is an error.
func TestAtomicWrite(t *testing.T) {
	a := new(Agent)
	dir := filepath.Join(t.TempDir(), "meta", "sub")
	p := filepath.Join(dir, "a.meta")
	for _, v := range []string{"version 1", "version 2"} {
		if err := a.writeAtomic(p, []byte(v)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != v {
			t.Fatalf("after writing %q: %q, %v", v, b, err)
		}
		es, _ := os.ReadDir(dir)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"a.meta"}) {
			t.Fatalf("files after writing %q: %v, want [a.meta]", v, names)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.writeAtomic(filepath.Join(dir, "file", "x.meta"), []byte("x")); err == nil {
		t.Fatal("a write under a regular file succeeded")
	}
}
