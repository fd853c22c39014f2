package mpitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestBuildCachesBinary(t *testing.T) {
	// A tiny main package in its own module, so the build stays fast.
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module hello\n\ngo 1.26\n")
	write("main.go", "package main\n\nfunc main() { println(\"hello\") }\n")
	t.Chdir(dir)
	p1 := Build(t, ".")
	st1, err := os.Stat(p1)
	if err != nil {
		t.Fatal(err)
	}
	p2 := Build(t, ".")
	st2, _ := os.Stat(p2)
	if p1 != p2 || !st1.ModTime().Equal(st2.ModTime()) {
		t.Errorf("second Build rebuilt: %s (%v) then %s (%v)", p1, st1.ModTime(), p2, st2.ModTime())
	}
	if out, err := exec.Command(p1).CombinedOutput(); err != nil || string(out) != "hello\n" {
		t.Errorf("built binary: %q, %v", out, err)
	}
}

func TestMain(m *testing.M) { Main(m) }
