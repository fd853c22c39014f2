package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// TestCoupledUCXPML runs the coupled demo under Open MPI's UCX PML, the
// default on InfiniBand clusters, whose MPI_TAG_UB (2^23-1) is far below
// ob1's: every data tag must fit under it, with implicit and explicit
// epochs (explicit epochs replay).
func TestCoupledUCXPML(t *testing.T) {
	if !mpitest.HasUCXPML() {
		t.Skip("this Open MPI has no UCX PML (ompi_info lists no \"MCA pml: ucx\")")
	}
	for _, explicit := range []bool{false, true} {
		name := "implicit"
		if explicit {
			name = "explicit"
		}
		t.Run(name, func(t *testing.T) {
			j := testJob(t)
			j.explicit = explicit
			dir := t.TempDir()
			stats := filepath.Join(dir, "stats.jsonl")
			j.config = filepath.Join(dir, "couple.ini")
			if err := writeConfig(j.config, config.ModeTransfer, stats); err != nil {
				t.Fatal(err)
			}
			apps := j.apps()
			for i := range apps {
				apps[i].Env = append(apps[i].Env, mpitest.UCXPML...)
			}
			out := launch(t, 3*time.Minute, apps...)
			wantVerified(t, j, out, false)
			report, err := checkTransfer(j, stats)
			t.Log(strings.Join(report, "\n"))
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
