package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// work is a directory shared by the tests for the library and C programs.
var work string

func TestMain(m *testing.M) {
	var err error
	if work, err = os.MkdirTemp("", "capi-test-"); err != nil {
		panic(err)
	}
	defer os.RemoveAll(work)
	mpitest.Main(m)
}

var lib struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// libPath builds libcouplet.so with -buildmode=c-shared once per test binary.
func libPath(t *testing.T) string {
	t.Helper()
	lib.once.Do(func() {
		lib.path = filepath.Join(work, "libcouplet.so")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", lib.path, ".")
		lib.out, lib.err = cmd.CombinedOutput()
	})
	if lib.err != nil {
		t.Fatalf("building libcouplet.so: %v\n%s", lib.err, lib.out)
	}
	return lib.path
}

// How a test program reaches PnetCDF.
type linkage int

const (
	linkCouplet linkage = iota // -lcouplet in place of -lpnetcdf, capi/pnetcdf.h
	linkReal                   // -lpnetcdf and the system <pnetcdf.h>
)

var progs sync.Map // "name/linkage" -> path

// cprog compiles cprogs/name.c with mpicc for the given linkage, once.
func cprog(t *testing.T, name string, l linkage) string {
	t.Helper()
	key := name + map[linkage]string{linkCouplet: ".couplet", linkReal: ".real"}[l]
	if p, ok := progs.Load(key); ok {
		return p.(string)
	}
	out := filepath.Join(work, key)
	src, _ := filepath.Abs(filepath.Join("cprogs", name+".c"))
	args := []string{"-O1", "-Wall", "-Werror", "-o", out, src}
	if l == linkCouplet {
		here, _ := filepath.Abs(".")
		lp := libPath(t)
		args = append(args, "-I"+here, "-L"+filepath.Dir(lp), "-lcouplet", "-Wl,-rpath,"+filepath.Dir(lp))
	} else {
		args = append(args, "-lpnetcdf")
	}
	if b, err := exec.Command("mpicc", args...).CombinedOutput(); err != nil {
		t.Fatalf("mpicc %v: %v\n%s", args, err, b)
	}
	progs.Store(key, out)
	return out
}
