package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
)

var fprogs sync.Map // name -> path

// fprog builds fprogs/name with mpif90, relinked the way README.md documents for
// Fortran programs: libcouplet first, then libpnetcdf for its nfmpi_* wrappers
// (which call ncmpi_* through the PLT, so they reach libcouplet). A program that
// calls only nfmpi_* names nothing of libcouplet itself, so --no-as-needed keeps
// the linker from dropping it.
func fprog(t *testing.T, name string) string {
	t.Helper()
	if p, ok := fprogs.Load(name); ok {
		return p.(string)
	}
	src, _ := filepath.Abs(filepath.Join("fprogs", name))
	out := filepath.Join(work, strings.TrimSuffix(strings.TrimSuffix(name, ".f90"), ".f")+".fortran")
	lp := libPath(t)
	args := []string{"-O1", "-o", out, src, "-I/usr/include/x86_64-linux-gnu",
		"-L" + filepath.Dir(lp), "-Wl,--no-as-needed", "-lcouplet", "-Wl,--as-needed", "-lpnetcdf", "-Wl,-rpath," + filepath.Dir(lp)}
	if b, err := exec.Command("mpif90", args...).CombinedOutput(); err != nil {
		t.Fatalf("mpif90 %v: %v\n%s", args, err, b)
	}
	fprogs.Store(name, out)
	return out
}

// TestFortranDTFOneMpirun couples the DTF-style Fortran pair (dtf_init,
// dtf_transfer, dtf_finalize, nfmpi_get_file_info on the coupled file) in one
// mpirun, with DTF's example config whose filename is a substring of the path.
// The programs use the component communicator from couplet_comm.
func TestFortranDTFOneMpirun(t *testing.T) {
	bin := fprog(t, "dtfdemo.f90")
	dir := t.TempDir()
	ini, _ := filepath.Abs(filepath.Join("testdata", "dtfdemo.ini"))
	out := mpitest.Run(t, runTimeout,
		mpitest.App{NP: 2, Prog: bin, Args: []string{"wrt", dir, ini}},
		mpitest.App{NP: 2, Prog: bin, Args: []string{"rdr", dir, ini}})
	expectVerified(t, out, "verified 96 values, info keys 1", 2)
}

// TestFortranF77OneMpirun couples the unmodified F77 program, which uses
// MPI_COMM_WORLD, in one mpirun: the world split makes MPI_COMM_WORLD each
// program's own ranks, and the config alone couples the file.
func TestFortranF77OneMpirun(t *testing.T) {
	bin := fprog(t, "f77.f")
	p := filepath.Join(t.TempDir(), "f77_coupled.nc")
	env := []string{config(t, "f77.ini")}
	out := mpitest.Run(t, runTimeout,
		mpitest.App{NP: 2, Prog: bin, Env: env, Args: []string{"w", p}},
		mpitest.App{NP: 2, Prog: bin, Env: env, Args: []string{"r", p}})
	expectVerified(t, out, "verified 60 values", 2)
}

// TestFortranSeparateLaunches couples the F77 program (mpif.h, pnetcdf.inc,
// MPI_COMM_WORLD) and the DTF-style pair in two separate mpiruns each, over UCX
// with the rendezvous in etcd, configured by the environment alone.
func TestFortranSeparateLaunches(t *testing.T) {
	etcd, err := embedded.Start(embedded.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer etcd.Close()
	common := []string{"COUPLET_TRANSPORT=ucx", "COUPLET_KVS=" + etcd.Endpoint(), "UCX_TLS=tcp"}
	t.Run("f77", func(t *testing.T) {
		bin := fprog(t, "f77.f")
		p := filepath.Join(t.TempDir(), "f77_coupled.nc")
		env := append([]string{config(t, "f77.ini"), "COUPLET_JOB=" + strings.ReplaceAll(t.Name(), "/", "-")}, common...)
		apps := []mpitest.App{
			{NP: 2, Prog: bin, Env: append(env, "COUPLET_COMPONENT=reader"), Args: []string{"r", p}},
			{NP: 2, Prog: bin, Env: append(env, "COUPLET_COMPONENT=writer"), Args: []string{"w", p}},
		}
		res := mpitest.LaunchApart(runTimeout, time.Second, apps...)
		for i, r := range res {
			if r.Err != nil {
				t.Fatalf("%s: %v\n%s", apps[i].Args[0], r.Err, r.Output)
			}
		}
		mpitest.NoUCXWarnings(t, res...)
		expectVerified(t, res[0].Output, "verified 60 values", 2)
	})
	t.Run("dtf", func(t *testing.T) {
		bin := fprog(t, "dtfdemo.f90")
		dir := t.TempDir()
		ini, _ := filepath.Abs(filepath.Join("testdata", "dtfdemo.ini"))
		env := append([]string{"COUPLET_JOB=" + strings.ReplaceAll(t.Name(), "/", "-")}, common...)
		apps := []mpitest.App{
			{NP: 2, Prog: bin, Env: env, Args: []string{"rdr", dir, ini}},
			{NP: 2, Prog: bin, Env: env, Args: []string{"wrt", dir, ini}},
		}
		res := mpitest.LaunchApart(runTimeout, time.Second, apps...)
		for i, r := range res {
			if r.Err != nil {
				t.Fatalf("%s: %v\n%s", apps[i].Args[0], r.Err, r.Output)
			}
		}
		mpitest.NoUCXWarnings(t, res...)
		expectVerified(t, res[0].Output, "verified 96 values, info keys 1", 2)
	})
}

// TestFortranMultiple: a Fortran writer ends its epoch with
// dtf_transfer_multiple, and the Fortran reader makes two dtf_transfers for
// the two halves of the array, then dtf_complete_multiple; every reader rank
// gets the whole array exactly. One mpirun, DTF's example config.
func TestFortranMultiple(t *testing.T) {
	bin := fprog(t, "multiple.f90")
	dir := t.TempDir()
	ini, _ := filepath.Abs(filepath.Join("testdata", "dtfdemo.ini"))
	out := mpitest.Run(t, runTimeout,
		mpitest.App{NP: 2, Prog: bin, Args: []string{"wrt", dir, ini}},
		mpitest.App{NP: 2, Prog: bin, Args: []string{"rdr", dir, ini}})
	expectVerified(t, out, "verified 48 values in 2 transfers", 2)
	expectVerified(t, out, "served the multiple transfer", 2)
}
