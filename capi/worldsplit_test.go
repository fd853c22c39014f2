package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/couplet-hpc/couplet/nc"
)

// TestWorldSplitGenerated regenerates zworldsplit.c from this machine's
// mpi.h: the committed file must be what the generator writes.
func TestWorldSplitGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "zworldsplit.c")
	if b, err := exec.Command("go", "run", "./gen/mpiwrap", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen/mpiwrap: %v\n%s", err, b)
	}
	want, err1 := os.ReadFile(out)
	got, err2 := os.ReadFile("zworldsplit.c")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("zworldsplit.c is stale: run go generate ./capi")
	}
}

// TestWorldSplitExports checks what libcouplet interposes: the C and
// Fortran entry points of functions taking a communicator, init, finalize
// and pcontrol, but not MPI_Abort (which means the whole job).
func TestWorldSplitExports(t *testing.T) {
	syms := dynamicText(t, libPath(t))
	for _, s := range []string{
		"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Pcontrol", "MPI_Comm_size", "MPI_Comm_rank",
		"MPI_Send", "MPI_Allreduce", "MPI_Comm_split", "MPI_Comm_get_attr", "MPI_File_open", "MPI_Win_create",
		"mpi_init_", "mpi_init_thread_", "mpi_finalize_", "mpi_pcontrol_", "mpi_comm_size_", "mpi_comm_rank_",
		"mpi_send_", "mpi_allreduce_", "mpi_comm_split_", "mpi_file_open_",
	} {
		if !syms[s] {
			t.Errorf("libcouplet does not export %s", s)
		}
	}
	for _, s := range []string{"MPI_Abort", "mpi_abort_", "PMPI_Send"} {
		if syms[s] {
			t.Errorf("libcouplet exports %s", s)
		}
	}
}

// TestTimeoutCodeInHeader checks capi/pnetcdf.h defines NC_ETIMEDOUT as nc
// does, in the block of couplet's extensions.
func TestTimeoutCodeInHeader(t *testing.T) {
	h, err := os.ReadFile("pnetcdf.h")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)couplet extensions.*#define NC_ETIMEDOUT \((-\d+)\).*end of couplet extensions`).FindSubmatch(h)
	if m == nil {
		t.Fatal("pnetcdf.h has no NC_ETIMEDOUT in its couplet extensions block")
	}
	if v, _ := strconv.Atoi(string(m[1])); v != int(nc.ETIMEDOUT) {
		t.Errorf("pnetcdf.h: NC_ETIMEDOUT %d, nc.ETIMEDOUT %d", v, int(nc.ETIMEDOUT))
	}
}
