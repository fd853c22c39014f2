package dtf

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/couplet-hpc/couplet"

// goList runs `go list` with args and returns its output's words.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	return strings.Fields(strings.Join(goListLines(t, args...), "\n"))
}

// goListLines runs `go list` with args and returns its output lines.
func goListLines(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{"list"}, args...)...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %v: %v\n%s", args, err, msg)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestDependencies pins the layering: the engine chooses transports by name and links
// none, and the libraries carry etcd's client at most, never its server.
func TestDependencies(t *testing.T) {
	for _, tc := range []struct {
		pkg       string
		forbidden []string // import path prefixes
	}{
		{module + "/dtf", []string{module + "/transport/mpitransport", module + "/transport/ucxtransport",
			module + "/transport/all", module + "/kvs/etcdkv", "go.etcd.io/"}},
		{module + "/dtf/protocol", []string{module + "/transport", module + "/kvs", module + "/mpi", module + "/ucx", "runtime/cgo"}},
		{module + "/dtf/config", []string{module + "/mpi", module + "/ucx", module + "/transport", module + "/kvs", "runtime/cgo"}},
		{module + "/capi", []string{"go.etcd.io/etcd/server"}},
		{module + "/examples/heat", []string{"go.etcd.io/etcd/server"}},
		// Test helpers stay out of the command: bench launches through internal/mpilaunch.
		{module + "/cmd/couplet", []string{"testing", module + "/internal/mpitest"}},
	} {
		t.Run(strings.TrimPrefix(tc.pkg, module+"/"), func(t *testing.T) {
			for _, dep := range goList(t, "-deps", tc.pkg) {
				for _, f := range tc.forbidden {
					if dep == f || strings.HasPrefix(dep, strings.TrimSuffix(f, "/")+"/") {
						t.Errorf("%s depends on %s", tc.pkg, dep)
					}
				}
			}
		})
	}
}

// TestBinariesLinkTransports checks that every program built on dtf links the
// transports it chooses from, so none fails at Init with "not linked".
func TestBinariesLinkTransports(t *testing.T) {
	// One listing: each package's path, name and transitive dependencies.
	lines := goListLines(t, "-f", `{{.ImportPath}} {{.Name}} {{join .Deps " "}}`, module+"/...")
	checked := 0
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || (f[1] != "main" && f[0] != module+"/capi") {
			continue
		}
		deps := map[string]bool{}
		for _, d := range f[2:] {
			deps[d] = true
		}
		if !deps[module+"/dtf"] {
			continue
		}
		checked++
		for _, need := range []string{module + "/transport/mpitransport", module + "/transport/ucxtransport", module + "/kvs/etcdkv"} {
			if !deps[need] {
				t.Errorf("%s uses dtf but does not link %s (import _ %q)", f[0], need, module+"/transport/all")
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d programs use dtf: the listing is wrong", checked)
	}
}
