package mpilaunch

import (
	"os/exec"
	"regexp"
)

// UCXPML makes Open MPI use its UCX PML on one host. It is Open MPI's
// default on InfiniBand clusters and reports a much lower MPI_TAG_UB
// (2^23-1) than ob1, the default here.
var UCXPML = []string{"OMPI_MCA_pml=ucx", "OMPI_MCA_pml_ucx_tls=any", "OMPI_MCA_pml_ucx_devices=any"}

var ucxPMLLine = regexp.MustCompile(`(?m)^\s*MCA pml: ucx\b`)

// HasUCXPML reports whether this Open MPI was built with the UCX PML, as
// ompi_info lists it.
func HasUCXPML() bool {
	out, err := exec.Command("ompi_info").Output()
	return err == nil && ucxPMLLine.Match(out)
}
