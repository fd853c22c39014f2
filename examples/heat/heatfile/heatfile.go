// Package heatfile holds what the heat writer and the analyze reader agree
// on: the step file names, the names of the variables and attributes, and
// the global checksum that the writer stores and the reader verifies.
package heatfile

import (
	"fmt"
	"path/filepath"
)

// Names of the dimensions, variables and attributes of a step file.
const (
	DimY     = "y"     // rows of the grid
	DimX     = "x"     // columns of the grid
	VarT     = "T"     // temperature, double (y, x)
	VarFlux  = "flux"  // |grad T|, float (y, x)
	VarStep  = "step"  // the time step, int64 scalar
	AttStep  = "step"  // global: time step (int64)
	AttTime  = "time"  // global: simulated time (double)
	AttSum   = "T_sum" // global: sum of T
	AttSumSq = "T_sumsq"
	AttWSum  = "T_wsum" // global: position-weighted sum of T (see Weight)
	AttMin   = "T_min"
	AttMax   = "T_max"
	AttFlux  = "flux_sum" // global: sum of flux (as stored, float)
)

// Pattern is the [FILE] filename pattern that covers every step file.
const Pattern = "heat_%.nc"

// FileName returns the file of output step step in dir.
func FileName(dir string, step int) string {
	return filepath.Join(dir, fmt.Sprintf("heat_%04d.nc", step))
}

// OutputSteps lists the steps at which a run of steps steps writes a file:
// every multiple of every from every to steps.
func OutputSteps(steps, every int) []int {
	if every <= 0 {
		return nil
	}
	var out []int
	for s := every; s <= steps; s += every {
		out = append(out, s)
	}
	return out
}

// Weight is the factor of element (y, x) in the weighted sum. It differs
// between neighbours, so data delivered to the wrong place changes the
// weighted sum even when the plain sum stays the same.
func Weight(y, x int64) float64 {
	return float64(1 + (y*31+x*17)%101)
}
