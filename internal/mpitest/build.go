package mpitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// builds caches helper binaries by package for the life of the test binary.
var builds struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*build
}

// buildSeq numbers binaries so that packages with the same name don't collide.
var buildSeq atomic.Int64

type build struct {
	once sync.Once
	path string
	err  error
}

// Build compiles the main package pkg (an import path, or a path relative to
// the test's package directory such as "./testprogs/foo") once per test
// binary and returns the path of the executable.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	builds.mu.Lock()
	if builds.bins == nil {
		builds.bins = map[string]*build{}
	}
	b := builds.bins[pkg]
	if b == nil {
		b = &build{}
		builds.bins[pkg] = b
	}
	builds.mu.Unlock()
	b.once.Do(func() { b.path, b.err = goBuild(pkg) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// goBuild runs `go build` for pkg into the shared build directory, naming
// the binary after the package's last element plus a unique number.
func goBuild(pkg string) (string, error) {
	dir, err := buildDir()
	if err != nil {
		return "", err
	}
	base := filepath.Base(pkg)
	if base == "." || base == "/" || base == ".." {
		base = "main"
	}
	out := filepath.Join(dir, fmt.Sprintf("%s-%d", base, buildSeq.Add(1)))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("mpitest: go build %s: %v\n%s", pkg, err, msg)
	}
	return out, nil
}

// buildDir creates the directory holding this test binary's helpers.
func buildDir() (string, error) {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir == "" {
		d, err := os.MkdirTemp("", "mpitest-")
		if err != nil {
			return "", fmt.Errorf("mpitest: %v", err)
		}
		builds.dir = d
	}
	return builds.dir, nil
}

// Main runs the tests of m, removes the helper binaries Build made, and
// exits with the tests' status. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	builds.mu.Lock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	builds.mu.Unlock()
	os.Exit(code)
}
