// Command block3d writes a 3-D float64 array split into blocks over a 3-D
// process grid with one collective call per rank, then reads it back with
// slabs along the last dimension and checks every value.
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

// grid splits np ranks into a px x py x pz grid, as MPI_Dims_create would.
func grid(np int) [3]int64 {
	g := [3]int64{1, 1, 1}
	for d := 0; np > 1; d = (d + 1) % 3 {
		f := 2
		for np%f != 0 {
			f++
		}
		g[d] *= int64(f)
		np /= f
	}
	return g
}

func run(path string, edge int64) error {
	w := mpi.World()
	rank, np := w.Rank(), w.Size()
	g := grid(np)
	n := [3]int64{edge * g[0], edge * g[1], edge * g[2]}
	f, err := pnetcdf.Create(w, path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return err
	}
	var dims []int
	for i, name := range []string{"z", "y", "x"} {
		d, err := f.DefDim(name, n[i])
		if err != nil {
			return err
		}
		dims = append(dims, d)
	}
	v, err := f.DefVar("density", nc.DOUBLE, dims)
	if err != nil {
		return err
	}
	if err := f.PutAttText(v, "units", "kg/m3"); err != nil {
		return err
	}
	if err := f.EndDef(); err != nil {
		return err
	}
	value := func(z, y, x int64) float64 { return float64((z*n[1]+y)*n[2]+x) / 8 }
	// This rank's block of the grid.
	c := [3]int64{int64(rank) / (g[1] * g[2]), int64(rank) / g[2] % g[1], int64(rank) % g[2]}
	start := []int64{c[0] * edge, c[1] * edge, c[2] * edge}
	count := []int64{edge, edge, edge}
	buf := make([]float64, 0, edge*edge*edge)
	for z := start[0]; z < start[0]+edge; z++ {
		for y := start[1]; y < start[1]+edge; y++ {
			for x := start[2]; x < start[2]+edge; x++ {
				buf = append(buf, value(z, y, x))
			}
		}
	}
	if err := pnetcdf.PutVaraAll(f, v, start, count, buf); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}

	// Read back: slabs of x, split as evenly as possible over the ranks.
	f, err = pnetcdf.Open(w, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	defer f.Close()
	x0 := n[2] * int64(rank) / int64(np)
	x1 := n[2] * int64(rank+1) / int64(np)
	got := make([]float64, n[0]*n[1]*(x1-x0))
	if err := pnetcdf.GetVaraAll(f, v, []int64{0, 0, x0}, []int64{n[0], n[1], x1 - x0}, got); err != nil {
		return err
	}
	i := 0
	for z := int64(0); z < n[0]; z++ {
		for y := int64(0); y < n[1]; y++ {
			for x := x0; x < x1; x++ {
				if got[i] != value(z, y, x) {
					return fmt.Errorf("rank %d: (%d,%d,%d) = %v, want %v", rank, z, y, x, got[i], value(z, y, x))
				}
				i++
			}
		}
	}
	fmt.Printf("rank %d: wrote block %v, verified %d values of x in [%d,%d)\n", rank, c, len(got), x0, x1)
	return nil
}

func main() {
	path := flag.String("o", "block3d.nc", "output file")
	edge := flag.Int64("edge", 8, "block edge per rank")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err := run(*path, *edge)
	mpi.Finalize()
	if err != nil {
		fmt.Fprintln(os.Stderr, "block3d:", err)
		os.Exit(1)
	}
}
