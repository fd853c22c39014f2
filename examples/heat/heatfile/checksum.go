package heatfile

import (
	"fmt"
	"math"

	"github.com/couplet-hpc/couplet/mpi"
)

// Checksum summarises the temperature and flux fields of one step.
type Checksum struct {
	Sum, SumSq, WSum float64 // sums of T, T², Weight·T
	Min, Max         float64 // extremes of T
	FluxSum          float64 // sum of flux
}

// Empty is the checksum of no data: the identity of Merge and Reduce.
func Empty() Checksum {
	return Checksum{Min: math.Inf(1), Max: math.Inf(-1)}
}

// AddBlock folds a row-major block of T with rows y0.. and columns x0..
// (nx columns) into c.
func (c *Checksum) AddBlock(t []float64, y0, x0, nx int64) {
	for i, v := range t {
		y, x := y0+int64(i)/nx, x0+int64(i)%nx
		c.Sum += v
		c.SumSq += v * v
		c.WSum += Weight(y, x) * v
		c.Min = math.Min(c.Min, v)
		c.Max = math.Max(c.Max, v)
	}
}

// AddFlux folds flux values into c.
func (c *Checksum) AddFlux(flux []float32) {
	for _, v := range flux {
		c.FluxSum += float64(v)
	}
}

// Reduce combines every rank's partial checksum over comm; every rank gets
// the global one.
func Reduce(comm mpi.Comm, c Checksum) (Checksum, error) {
	sums, lo, hi := make([]float64, 4), make([]float64, 1), make([]float64, 1)
	if err := mpi.AllreduceFloat64(comm, []float64{c.Sum, c.SumSq, c.WSum, c.FluxSum}, sums, mpi.Sum); err != nil {
		return c, fmt.Errorf("reduce sums: %w", err)
	}
	if err := mpi.AllreduceFloat64(comm, []float64{c.Min}, lo, mpi.Min); err != nil {
		return c, fmt.Errorf("reduce min: %w", err)
	}
	if err := mpi.AllreduceFloat64(comm, []float64{c.Max}, hi, mpi.Max); err != nil {
		return c, fmt.Errorf("reduce max: %w", err)
	}
	return Checksum{Sum: sums[0], SumSq: sums[1], WSum: sums[2], FluxSum: sums[3], Min: lo[0], Max: hi[0]}, nil
}

// RelTol is the relative tolerance of the sums: writer and reader add the
// same values in different orders.
const RelTol = 1e-9

// Compare lists the differences between a reader's checksum got and the
// writer's want: sums within RelTol, extremes exactly.
func Compare(got, want Checksum) []string {
	var bad []string
	near := func(name string, g, w float64) {
		if math.Abs(g-w) > RelTol*math.Max(1, math.Abs(w)) || math.IsNaN(g) {
			bad = append(bad, fmt.Sprintf("%s=%.17g, writer %.17g", name, g, w))
		}
	}
	near(AttSum, got.Sum, want.Sum)
	near(AttSumSq, got.SumSq, want.SumSq)
	near(AttWSum, got.WSum, want.WSum)
	near(AttFlux, got.FluxSum, want.FluxSum)
	if got.Min != want.Min {
		bad = append(bad, fmt.Sprintf("%s=%.17g, writer %.17g", AttMin, got.Min, want.Min))
	}
	if got.Max != want.Max {
		bad = append(bad, fmt.Sprintf("%s=%.17g, writer %.17g", AttMax, got.Max, want.Max))
	}
	return bad
}
