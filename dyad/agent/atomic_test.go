package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/ofd"
)

// TestAtomicWrite: a sidecar written beside a transfer appears, whole, only at commit
// (replacing an older one), its temporary file held meanwhile; an aborted one leaves
// nothing behind.
func TestAtomicWrite(t *testing.T) {
	a := new(Agent)
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

	w := a.startAtomic(p, []byte("version 1"))
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	w = a.startAtomic(p, []byte("version 2"))
	<-w.done // written, not yet committed: the old record is still the one in place
	// The temporary file is a staging's: a sweep can tell it apart and cannot take it.
	if f, err := os.OpenFile(w.tmp.Name(), os.O_RDWR, 0); err != nil {
		t.Fatal(err)
	} else {
		got, err := ofd.TryLock(f, true)
		f.Close()
		if got || err != nil || !strings.HasPrefix(filepath.Base(w.tmp.Name()), dyad.TempPrefix) {
			t.Fatalf("temporary file %s: lock taken %v (%v), want a held %s* file", w.tmp.Name(), got, err, dyad.TempPrefix)
		}
	}
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

	a.startAtomic(p, []byte("version 3")).abort()
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
	if err := a.startAtomic(filepath.Join(dir, "file", "x.meta"), []byte("x")).commit(); err == nil {
		t.Fatal("commit under a regular file succeeded")
	}
}
