package pnetcdf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// TestCoupledBadInput makes every bad call of the error-code matrix on a
// coupled file (transfer mode) and on a disk twin: both backends must return
// the same NC_* code, and the reader must then receive exactly the good data,
// nothing from a rejected put.
func TestCoupledBadInput(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "couple.ini")
	ini := "[INFO]\nncomp = 2\ncomp_name = w\ncomp_name = r\ntimeout = 60\n\n[FILE]\nfilename = cpl.nc\ncomp1 = w\ncomp2 = r\nmode = transfer\n"
	if err := os.WriteFile(cfg, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := mpitest.Build(t, prefix+"coupledbad")
	a := []string{"-cfg", cfg, "-dir", dir, "-nw", "2"}
	out := mpitest.Run(t, 2*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a}, mpitest.App{NP: 2, Prog: bin, Args: a})
	// 27 writer cases and 30 reader cases, on each of 2+2 ranks.
	if n := strings.Count(out, ">:ok "); n != 2*27+2*30 {
		t.Errorf("%d cases agreed, want %d:\n%s", n, 2*27+2*30, out)
	}
	if n := strings.Count(out, "DATA rank"); n != 2 {
		t.Errorf("%d readers checked their data, want 2:\n%s", n, out)
	}
	if testing.Verbose() {
		fmt.Println(out)
	}
}
