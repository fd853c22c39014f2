package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/nc"
)

// fortranModDir holds Debian's pnetcdf.mod for gfortran.
const fortranModDir = "/usr/lib/x86_64-linux-gnu/fortran/gfortran-mod-15"

// plainProg compiles capi/plain/name (writer.c, reader.f90 ...) for the
// given linkage, once per test binary. Linked against libcouplet, C programs
// take capi/pnetcdf.h and -lcouplet alone; Fortran programs keep -lpnetcdf
// after -lcouplet for PnetCDF's Fortran layer, whose ncmpi_* calls then bind
// to libcouplet.
func plainProg(t *testing.T, name string, l linkage) string {
	t.Helper()
	key := "plain-" + strings.ReplaceAll(name, ".", "-") + map[linkage]string{linkCouplet: ".couplet", linkReal: ".real"}[l]
	if p, ok := progs.Load(key); ok {
		return p.(string)
	}
	out := filepath.Join(work, key)
	src, _ := filepath.Abs(filepath.Join("plain", name))
	cc, args := "mpicc", []string{"-O1", "-Wall", "-Werror", "-o", out, src}
	if strings.HasSuffix(name, ".f90") {
		cc, args = "mpif90", []string{"-O1", "-cpp", "-Wall", "-I" + fortranModDir, "-o", out, src}
	}
	if l == linkCouplet {
		here, _ := filepath.Abs(".")
		lp := libPath(t)
		if cc == "mpicc" {
			args = append(args, "-I"+here)
		}
		args = append(args, "-L"+filepath.Dir(lp), "-lcouplet", "-Wl,-rpath,"+filepath.Dir(lp))
		if cc == "mpif90" {
			args = append(args, "-lpnetcdf")
		}
	} else {
		args = append(args, "-lpnetcdf")
	}
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	progs.Store(key, out)
	return out
}

// mixedRE is reader.c's report of a buftype of two basic types.
var mixedRE = regexp.MustCompile(`mixed buftype (\S+): (.*)`)

var sumsRE = regexp.MustCompile(`sums (\S+): t=(-?\d+) p128=(-?\d+)(?: halo=(-?\d+))?`)

// readerSums collects the sums each file's rank 0 printed: file -> fields.
func readerSums(t *testing.T, out string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, m := range sumsRE.FindAllStringSubmatch(out, -1) {
		if _, dup := got[m[1]]; dup {
			t.Errorf("sums of %s printed twice; output:\n%s", m[1], out)
		}
		got[m[1]] = m[2:]
	}
	return got
}

// cmpFiles is cmp(1): the two files must be byte-identical.
func cmpFiles(t *testing.T, a, b string) {
	t.Helper()
	if out, err := exec.Command("cmp", a, b).CombinedOutput(); err != nil {
		t.Errorf("cmp %s %s: %v %s", a, b, err, out)
	}
}

// TestPlainPrograms couples the ordinary programs of capi/plain (C and
// Fortran, decomposing over MPI_COMM_WORLD, calling nothing of couplet's)
// in one mpirun at 4+2 and 3+5, preloaded and linked. Each launch couples a
// transfer-mode file and a file-mode file; the writer names them by absolute
// paths and the reader by relative ones. The C writer puts through vector
// and nested indexed buftypes and escapes the split with MPI_Pcontrol(0).
// The reader's sums (C's include a halo'd subarray-typed iget_vara) must
// equal a run on real files, a buftype of two basic types must fail as with
// libpnetcdf, the
// file-mode file must be cmp-identical to libpnetcdf's with the writer
// alone, and the writer alone with DTF_INI_FILE set must write a file the
// config does not name exactly as libpnetcdf does.
func TestPlainPrograms(t *testing.T) {
	ini := config(t, "plain.ini")
	ref := filepath.Join(t.TempDir(), "ref.nc")
	mpitest.Run(t, runTimeout, mpitest.App{NP: 4, Prog: plainProg(t, "writer.c", linkReal), Args: []string{ref}})
	refOut := mpitest.Run(t, runTimeout, mpitest.App{NP: 2, Prog: plainProg(t, "reader.c", linkReal), Args: []string{ref}})
	want := readerSums(t, refOut)["ref.nc"]
	if len(want) != 3 || want[2] != want[0] {
		t.Fatalf("reference reader on real files: sums %v, want t, p128 and halo (= t)", want)
	}
	wantMixed := mixedRE.FindStringSubmatch(refOut)
	if wantMixed == nil || wantMixed[2] == "accepted" {
		t.Fatalf("reference reader: libpnetcdf did not refuse a buftype of two basic types; output:\n%s", refOut)
	}

	t.Run("alone", func(t *testing.T) {
		alone := filepath.Join(t.TempDir(), "alone.nc")
		mpitest.Run(t, runTimeout, mpitest.App{NP: 4, Prog: plainProg(t, "writer.c", linkReal),
			Env: []string{"LD_PRELOAD=" + libPath(t), ini}, Args: []string{alone}})
		cmpFiles(t, alone, ref)
	})

	preload := []string{"LD_PRELOAD=" + libPath(t), ini}
	linked := []string{ini}
	cwd, _ := os.Getwd()
	for _, c := range []struct {
		name           string
		writer, reader string
		nw, nr         int
		l              linkage
		env            []string
	}{
		{"preload/C4+F2", "writer.c", "reader.f90", 4, 2, linkReal, preload},
		{"preload/F3+C5", "writer.f90", "reader.c", 3, 5, linkReal, preload},
		{"linked/F4+C2", "writer.f90", "reader.c", 4, 2, linkCouplet, linked},
		{"linked/C3+F5", "writer.c", "reader.f90", 3, 5, linkCouplet, linked},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tf, ff := filepath.Join(dir, "coupled_t.nc"), filepath.Join(dir, "coupled_f.nc")
			rel := func(p string) string {
				r, err := filepath.Rel(cwd, p)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			out := mpitest.Run(t, runTimeout,
				mpitest.App{NP: c.nw, Prog: plainProg(t, c.writer, c.l), Env: c.env, Args: []string{tf, ff}},
				mpitest.App{NP: c.nr, Prog: plainProg(t, c.reader, c.l), Env: c.env, Args: []string{rel(tf), rel(ff)}})
			line := "writer: " + strconv.Itoa(c.nw) + " ranks wrote 2 files"
			if strings.HasSuffix(c.writer, ".c") {
				// MPI_Pcontrol(0) escapes to the launch's world, 1 comes back.
				line += fmt.Sprintf(" (MPI_Pcontrol(0): %d ranks, then %d)", c.nw+c.nr, c.nw)
			}
			if !strings.Contains(out, line+"\n") {
				t.Errorf("the writer did not say %q (a world of its own %d ranks); output:\n%s", line, c.nw, out)
			}
			if strings.HasSuffix(c.reader, ".c") {
				for _, m := range mixedRE.FindAllStringSubmatch(out, -1) {
					if m[2] != wantMixed[2] {
						t.Errorf("%s: a buftype of two basic types gave %q, libpnetcdf %q", m[1], m[2], wantMixed[2])
					}
				}
				if n := len(mixedRE.FindAllString(out, -1)); n != 2 {
					t.Errorf("%d files reported the mixed buftype, want 2", n)
				}
			}
			got := readerSums(t, out)
			for _, f := range []string{"coupled_t.nc", "coupled_f.nc"} {
				g := got[f]
				if len(g) != 3 || g[0] != want[0] || g[1] != want[1] || (g[2] != "" && g[2] != want[2]) {
					t.Errorf("%s: reader sums %q, want %q (real files); output:\n%s", f, g, want, out)
				}
			}
			if _, err := os.Stat(tf); err == nil {
				t.Errorf("transfer mode wrote %s to disk", tf)
			}
			cmpFiles(t, ff, ref)
		})
	}
}

// TestPlainStopsInTime checks that a launch that cannot couple ends by
// itself within the config's timeout with an error that says why, never
// hanging: the reader launched without libcouplet (as `-x LD_PRELOAD=...`
// before the first program does), and a reader whose writer never creates
// the coupled file (its open fails with NC_ETIMEDOUT and its own message).
func TestPlainStopsInTime(t *testing.T) {
	ini := filepath.Join(t.TempDir(), "short.ini")
	src, err := os.ReadFile(filepath.Join("testdata", "plain.ini"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ini, []byte(strings.Replace(string(src), "timeout = 30s", "timeout = 5s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	withLib := []string{"LD_PRELOAD=" + libPath(t), "DTF_INI_FILE=" + ini}
	for _, c := range []struct {
		name      string
		readerEnv []string
		writes    bool
		want      []string
	}{
		{"no couplet in the reader", []string{"DTF_INI_FILE=" + ini}, true,
			[]string{"world ranks [2] of app 1", "did not start couplet within 5s", "program 2 of the mpirun line", "-x LD_PRELOAD"}},
		{"no writer for the file", withLib, false,
			[]string{"dtf: timeout after 5s", "FAIL reader.c:", ": " + nc.ETIMEDOUT.Error()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "coupled_t.nc")
			var wargs []string
			if c.writes {
				wargs = []string{path}
			}
			r := mpitest.Launch(runTimeout,
				mpitest.App{NP: 2, Prog: plainProg(t, "writer.c", linkReal), Env: withLib, Args: wargs},
				mpitest.App{NP: 1, Prog: plainProg(t, "reader.c", linkReal), Env: c.readerEnv, Args: []string{path}})
			if r.TimedOut || r.Err == nil {
				t.Fatalf("the launch did not fail by itself (timed out %v, err %v) in %v; output:\n%s", r.TimedOut, r.Err, r.Elapsed, r.Output)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("the output does not say %q; output:\n%s", w, r.Output)
				}
			}
			if strings.Contains(r.Output, "couplet: couplet:") {
				t.Errorf("doubled prefix in:\n%s", r.Output)
			}
			t.Logf("the launch failed after %v (config timeout 5s)", r.Elapsed.Round(time.Millisecond))
		})
	}
}

// TestPlainSplitOff runs the C writer as both components with
// COUPLET_SPLIT_WORLD=0: MPI_COMM_WORLD is then the launch's world, as
// without couplet (with the split on, TestPlainPrograms sees each
// component's own).
func TestPlainSplitOff(t *testing.T) {
	env := []string{"LD_PRELOAD=" + libPath(t), config(t, "plain.ini"), "COUPLET_SPLIT_WORLD=0"}
	w := plainProg(t, "writer.c", linkReal)
	out := mpitest.Run(t, runTimeout, mpitest.App{NP: 2, Prog: w, Env: env}, mpitest.App{NP: 1, Prog: w, Env: env})
	if want := "writer: 3 ranks wrote 0 files (MPI_Pcontrol(0): 3 ranks, then 3)\n"; !strings.Contains(out, want) || strings.Count(out, "writer: ") != 1 {
		t.Errorf("want one %q; output:\n%s", want, out)
	}
}
