package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAtomicWrite: a sidecar written beside a transfer appears, whole, only at commit
// (replacing an older one); an aborted one leaves nothing behind.
func TestAtomicWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "meta", "sub")
	p := filepath.Join(dir, "a.meta")
	names := func() []string {
		es, _ := os.ReadDir(dir)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}

	w := startAtomic(p, []byte("version 1"))
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	w = startAtomic(p, []byte("version 2"))
	<-w.done // written, not yet committed: the old record is still the one in place
	if b, err := os.ReadFile(p); err != nil || string(b) != "version 1" {
		t.Fatalf("before commit: %q, %v; want version 1", b, err)
	}
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "version 2" {
		t.Fatalf("after commit: %q, %v; want version 2", b, err)
	}
	if got := names(); len(got) != 1 || got[0] != "a.meta" {
		t.Fatalf("files after two commits: %v, want [a.meta]", got)
	}

	startAtomic(p, []byte("version 3")).abort()
	if b, err := os.ReadFile(p); err != nil || string(b) != "version 2" {
		t.Fatalf("after abort: %q, %v; want version 2", b, err)
	}
	if got := names(); len(got) != 1 || got[0] != "a.meta" {
		t.Fatalf("files after an abort: %v, want [a.meta]", got)
	}

	// A directory that cannot be made is an error at commit.
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := startAtomic(filepath.Join(dir, "file", "x.meta"), []byte("x")).commit(); err == nil {
		t.Fatal("commit under a regular file succeeded")
	}
}
