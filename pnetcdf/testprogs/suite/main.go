// Command suite exercises the pnetcdf API under mpirun: every element type
// through every access family (types), record variables (records),
// nonblocking requests (nb) and attributes (atts). Each part writes a file
// into -dir and reads it back with another decomposition; the parent test
// validates the files with ncvalidator and ncmpidump.
package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

var (
	rank, nprocs int
	world        mpi.Comm
)

// must stops this rank on an unexpected error.
func must(err error, what string, args ...any) {
	if err != nil {
		mpitest.Fatal(rank, "%s: %v", fmt.Sprintf(what, args...), err)
	}
}

// wantCode checks that err carries code.
func wantCode(err error, code nc.Error, what string) {
	if nc.Code(err) != code {
		mpitest.Fail(rank, "%s: got %v (%s), want %s", what, err, nc.Code(err).Name(), code.Name())
	}
}

func main() {
	dir := flag.String("dir", ".", "output directory")
	parts := flag.String("run", "types,records,nb,atts", "comma-separated parts")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		mpitest.Fatal(-1, "mpi.Init: %v", err)
	}
	world = mpi.World()
	rank, nprocs = world.Rank(), world.Size()
	for _, p := range strings.Split(*parts, ",") {
		path := filepath.Join(*dir, p+".nc")
		switch p {
		case "types":
			runTypes(path)
		case "records":
			runRecords(path)
		case "nb":
			runNonblocking(path)
		case "atts":
			runAtts(path)
		default:
			mpitest.Fatal(rank, "unknown part %q", p)
		}
	}
	must(mpi.Finalize(), "finalize")
	mpitest.Exit()
}

// value is the element stored at flat index k of every test variable.
func value[T nc.Elem](k int64) T {
	if nc.TypeOf[T]() == nc.CHAR {
		return T('a' + k%26)
	}
	return T(k % 100)
}
