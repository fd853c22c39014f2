// Command manyvars posts one nonblocking write per variable for many
// variables, completes them all with a single collective WaitAll (which lets
// libpnetcdf aggregate them into few file accesses), and verifies them with
// nonblocking reads in another decomposition.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func run(path string, nvars int, local int64) error {
	w := mpi.World()
	rank, np := int64(w.Rank()), int64(w.Size())
	f, err := pnetcdf.Create(w, path, nc.CLOBBER|nc.BIT64_OFFSET)
	if err != nil {
		return err
	}
	yd, _ := f.DefDim("y", np)
	xd, _ := f.DefDim("x", local)
	ids := make([]int, nvars)
	for v := range ids {
		if ids[v], err = f.DefVar(fmt.Sprintf("var%03d", v), nc.INT, []int{yd, xd}); err != nil {
			return err
		}
	}
	if err := f.EndDef(); err != nil {
		return err
	}
	val := func(v int, y, x int64) int32 { return int32(v*10000 + int(y*local+x)) }
	bufs := make([][]int32, nvars) // must stay untouched until WaitAll
	for v := range bufs {
		bufs[v] = make([]int32, local)
		for x := range bufs[v] {
			bufs[v][x] = val(v, rank, int64(x))
		}
		if _, err := pnetcdf.IPutVara(f, ids[v], []int64{rank, 0}, []int64{1, local}, bufs[v]); err != nil {
			return err
		}
	}
	if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}

	f, err = pnetcdf.Open(w, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	defer f.Close()
	// Read column blocks instead of rows.
	x0, x1 := local*rank/np, local*(rank+1)/np
	got := make([][]int64, nvars)
	reqs := make([]int, nvars)
	for v := range got {
		got[v] = make([]int64, np*(x1-x0))
		if reqs[v], err = pnetcdf.IGetVara(f, ids[v], []int64{0, x0}, []int64{np, x1 - x0}, got[v]); err != nil {
			return err
		}
	}
	st, err := f.WaitAll(len(reqs), reqs)
	if err != nil {
		return err
	}
	for v := range got {
		if st[v] != nil {
			return fmt.Errorf("read of var%03d: %v", v, st[v])
		}
		i := 0
		for y := int64(0); y < np; y++ {
			for x := x0; x < x1; x++ {
				if got[v][i] != int64(val(v, y, x)) {
					return fmt.Errorf("var%03d[%d][%d] = %d, want %d", v, y, x, got[v][i], val(v, y, x))
				}
				i++
			}
		}
	}
	fmt.Printf("rank %d: %d variables written nonblocking and verified\n", rank, nvars)
	return nil
}

func main() {
	path := flag.String("o", "manyvars.nc", "output file")
	nvars := flag.Int("vars", 64, "number of variables")
	local := flag.Int64("x", 32, "row length")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err := run(*path, *nvars, *local)
	mpi.Finalize()
	if err != nil {
		fmt.Fprintln(os.Stderr, "manyvars:", err)
		os.Exit(1)
	}
}
