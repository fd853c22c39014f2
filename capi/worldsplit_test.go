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

// TestFileCallsHoldIOExclusion checks the generated wrappers: each MPI-IO
// call, C and Fortran, runs between couplet_io_enter and couplet_io_leave
// (dtf's background progress stays out of MPI meanwhile: Open MPI's OMPIO is
// not thread safe), and no other call does.
func TestFileCallsHoldIOExclusion(t *testing.T) {
	src, err := os.ReadFile("zworldsplit.c")
	if err != nil {
		t.Fatal(err)
	}
	// The call, and only it, between the two; the Fortran wrapper looks up
	// the real entry point first.
	held := regexp.MustCompile(`\n\tcouplet_io_enter\(\);\n\t[^\n]+\n\tcouplet_io_leave\(\);\n(\treturn err;\n)?\}$`)
	for _, c := range []struct {
		fn   string
		held bool
	}{
		{"int MPI_File_write_all(", true},
		{"int MPI_File_open(", true},
		{"int MPI_File_iread_at(", true},
		{"void mpi_file_write_all_(", true},
		{"void mpi_file_open_(", true},
		{"int MPI_Send(", false},
		{"int MPI_Allreduce(", false},
		{"void mpi_send_(", false},
	} {
		i := bytes.Index(src, []byte(c.fn))
		if i < 0 {
			t.Errorf("zworldsplit.c has no %s...)", c.fn)
			continue
		}
		body := src[i+bytes.IndexByte(src[i:], '{'):]
		body = body[:bytes.Index(body, []byte("\n}\n"))+2]
		if got := held.Match(body); got != c.held {
			t.Errorf("%s...): holds the MPI-IO exclusion = %v, want %v:\n%s", c.fn, got, c.held, body)
		}
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
		"mpi_send_", "mpi_allreduce_", "mpi_comm_split_", "mpi_file_open_", "MPI_File_write_all", "mpi_file_write_all_",
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
