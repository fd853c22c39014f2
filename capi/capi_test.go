package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

const runTimeout = 120 * time.Second

// loading is one way a program gets libcouplet.
type loading struct {
	name string
	prog func(t *testing.T, name string) string
	env  func(t *testing.T) []string
}

var loadings = []loading{
	{"linked", func(t *testing.T, n string) string { return cprog(t, n, linkCouplet) }, func(*testing.T) []string { return nil }},
	{"preload", func(t *testing.T, n string) string { return cprog(t, n, linkReal) },
		func(t *testing.T) []string { return []string{"LD_PRELOAD=" + libPath(t)} }},
}

func config(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return "DTF_INI_FILE=" + p
}

// expectVerified checks that each of n reader ranks reported its values.
func expectVerified(t *testing.T, out, word string, n int) {
	t.Helper()
	if got := strings.Count(out, word); got != n {
		t.Errorf("%d ranks reported %q, want %d; output:\n%s", got, word, n, out)
	}
}

// sameFile compares two netCDF files with ncmpidiff and byte for byte.
func sameFile(t *testing.T, a, b string) {
	t.Helper()
	out, err := exec.Command("ncmpidiff", a, b).CombinedOutput()
	if err != nil {
		t.Errorf("ncmpidiff %s %s: %v\n%s", a, b, err, out)
	}
	da, errA := os.ReadFile(a)
	db, errB := os.ReadFile(b)
	if errA != nil || errB != nil {
		t.Fatalf("reading %s, %s: %v %v", a, b, errA, errB)
	}
	if !bytes.Equal(da, db) {
		t.Errorf("%s (%d bytes) and %s (%d bytes) differ", a, len(da), b, len(db))
	}
}

var monitorLowered = regexp.MustCompile(`Go runtime monitor thread \d+ at nice 19\n`)

// TestTransferMPMD couples writer.c and reader.c in one MPMD launch, blocking
// and nonblocking, linked and preloaded; the uncoupled side file written
// alongside must equal the real libpnetcdf's.
func TestTransferMPMD(t *testing.T) {
	ref := t.TempDir()
	mpitest.Run(t, runTimeout, mpitest.App{NP: 4, Prog: cprog(t, "writer", linkReal),
		Args: []string{filepath.Join(ref, "coupled.nc"), filepath.Join(ref, "side.nc")}})
	for _, l := range loadings {
		for _, mode := range []string{"blocking", "nb"} {
			t.Run(l.name+"/"+mode, func(t *testing.T) {
				dir := t.TempDir()
				env := append(l.env(t), config(t, "transfer.ini"), "DTF_VERBOSE_LEVEL=1")
				out := mpitest.Run(t, runTimeout,
					mpitest.App{NP: 4, Prog: l.prog(t, "writer"), Env: env,
						Args: []string{filepath.Join(dir, "coupled.nc"), filepath.Join(dir, "side.nc"), mode}},
					mpitest.App{NP: 2, Prog: l.prog(t, "reader"), Env: env,
						Args: []string{filepath.Join(dir, "coupled.nc"), mode}})
				expectVerified(t, out, "verified 120 values", 2)
				// The library's runtime found its monitor thread too.
				if n := len(monitorLowered.FindAllString(out, -1)); n != 2 {
					t.Errorf("%d components lowered the runtime's monitor thread to nice 19, want 2; output:\n%s", n, out)
				}
				if _, err := os.Stat(filepath.Join(dir, "coupled.nc")); err == nil {
					t.Errorf("transfer mode wrote coupled.nc to disk")
				}
				sameFile(t, filepath.Join(dir, "side.nc"), filepath.Join(ref, "side.nc"))
			})
		}
	}
}

// TestLETKF runs the SCALE-LETKF style program: dtf_init, bput with
// buffer_attach, iput, put_var1_double_all, iget, dtf_transfer, dtf_finalize.
func TestLETKF(t *testing.T) {
	for _, l := range loadings {
		t.Run(l.name, func(t *testing.T) {
			dir := t.TempDir()
			ini := strings.TrimPrefix(config(t, "letkf.ini"), "DTF_INI_FILE=")
			path := filepath.Join(dir, "x.anal.nc")
			out := mpitest.Run(t, runTimeout,
				mpitest.App{NP: 4, Prog: l.prog(t, "letkf"), Env: l.env(t), Args: []string{"scale", path, ini}},
				mpitest.App{NP: 2, Prog: l.prog(t, "letkf"), Env: l.env(t), Args: []string{"letkf", path, ini}})
			expectVerified(t, out, "verified 2 cycles", 2)
		})
	}
}

// TestSameFilesAsLibpnetcdf runs the programs with no config and with the
// config in file mode, and compares every file they write with the real
// libpnetcdf's output of the same programs.
func TestSameFilesAsLibpnetcdf(t *testing.T) {
	ref := t.TempDir()
	mpitest.Run(t, runTimeout, mpitest.App{NP: 4, Prog: cprog(t, "writer", linkReal),
		Args: []string{filepath.Join(ref, "coupled.nc"), filepath.Join(ref, "side.nc")}})
	for _, l := range loadings {
		t.Run(l.name+"/noconfig", func(t *testing.T) {
			dir := t.TempDir()
			mpitest.Run(t, runTimeout, mpitest.App{NP: 4, Prog: l.prog(t, "writer"), Env: l.env(t),
				Args: []string{filepath.Join(dir, "coupled.nc"), filepath.Join(dir, "side.nc")}})
			out := mpitest.Run(t, runTimeout, mpitest.App{NP: 2, Prog: l.prog(t, "reader"), Env: l.env(t),
				Args: []string{filepath.Join(dir, "coupled.nc")}})
			expectVerified(t, out, "verified 120 values", 2)
			for _, f := range []string{"coupled.nc", "side.nc"} {
				sameFile(t, filepath.Join(dir, f), filepath.Join(ref, f))
			}
		})
		t.Run(l.name+"/filemode", func(t *testing.T) {
			dir := t.TempDir()
			env := append(l.env(t), config(t, "file.ini"))
			out := mpitest.Run(t, runTimeout,
				mpitest.App{NP: 4, Prog: l.prog(t, "writer"), Env: env,
					Args: []string{filepath.Join(dir, "coupled.nc"), filepath.Join(dir, "side.nc")}},
				mpitest.App{NP: 2, Prog: l.prog(t, "reader"), Env: env,
					Args: []string{filepath.Join(dir, "coupled.nc")}})
			expectVerified(t, out, "verified 120 values", 2)
			for _, f := range []string{"coupled.nc", "side.nc"} {
				sameFile(t, filepath.Join(dir, f), filepath.Join(ref, f))
			}
		})
	}
}
