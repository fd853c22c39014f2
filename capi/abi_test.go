package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

var transcriptRE = regexp.MustCompile(`(?m)<stdout>:([WRL]\d+ .*)$`)

// transcript returns the sorted result lines of cprogs/abi.c runs, with the file
// name the runs used replaced by NAME.
func transcript(name string, outs ...string) []string {
	var lines []string
	for _, o := range outs {
		for _, m := range transcriptRE.FindAllStringSubmatch(o, -1) {
			lines = append(lines, strings.ReplaceAll(m[1], name, "NAME"))
		}
	}
	slices.Sort(lines)
	return lines
}

// TestABIProgram runs cprogs/abi.c (varn, mput/mget, vard, def_var_fill,
// inq_var_fill, fill_var_rec, rename_dim/var/att, copy_att, __enddef, flush,
// sync_numrecs, buffer size, file info, files opened, path, version, striping,
// recsize ...): a writer of 2 ranks then a reader of 1 on a disk file with the
// real libpnetcdf; the same on a disk file under libcouplet (LD_PRELOAD); and
// both coupled in one mpirun in transfer mode, built against capi/pnetcdf.h and
// linked with -lcouplet. Every line of the three transcripts must be equal,
// except the file-layout inquiries (varoffset, header_size, header_extent),
// which a coupled file answers with NC_ENOTSUPPORT (-214).
func TestABIProgram(t *testing.T) {
	real := cprog(t, "abi", linkReal)
	run := func(dir string, env []string) []string {
		p := filepath.Join(dir, "twin.nc")
		w := mpitest.Run(t, runTimeout, mpitest.App{NP: 2, Prog: real, Env: env, Args: []string{"w", p}})
		r := mpitest.Run(t, runTimeout, mpitest.App{NP: 1, Prog: real, Env: env, Args: []string{"r", p}})
		return transcript("twin.nc", w, r)
	}
	want := run(t.TempDir(), nil)
	if len(want) < 70 {
		t.Fatalf("the real libpnetcdf run printed %d result lines:\n%s", len(want), strings.Join(want, "\n"))
	}
	disk := run(t.TempDir(), []string{"LD_PRELOAD=" + libPath(t)})
	if strings.Join(disk, "\n") != strings.Join(want, "\n") {
		t.Errorf("disk file under libcouplet differs from libpnetcdf:\n%s\nwant:\n%s", strings.Join(disk, "\n"), strings.Join(want, "\n"))
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "coupled.nc")
	env := []string{config(t, "transfer.ini")}
	linked := cprog(t, "abi", linkCouplet)
	out := mpitest.Run(t, runTimeout,
		mpitest.App{NP: 2, Prog: linked, Env: env, Args: []string{"w", p}},
		mpitest.App{NP: 1, Prog: linked, Env: env, Args: []string{"r", p}})
	got := transcript("coupled.nc", out)
	var wantCoupled []string
	for _, l := range want {
		if strings.HasPrefix(l, "L") {
			if !strings.HasSuffix(l, " (0)") {
				t.Fatalf("libpnetcdf failed a layout inquiry: %s", l)
			}
			l = strings.TrimSuffix(l, " (0)") + " (-214)"
		}
		wantCoupled = append(wantCoupled, l)
	}
	slices.Sort(wantCoupled)
	if strings.Join(got, "\n") != strings.Join(wantCoupled, "\n") {
		t.Errorf("coupled run differs from libpnetcdf on the disk twin:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantCoupled, "\n"))
	}
}
