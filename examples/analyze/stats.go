package main

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
	"github.com/couplet-hpc/couplet/mpi"
)

// fieldStats are the statistics of the whole temperature field.
type fieldStats struct {
	n, mean, std float64
	check        heatfile.Checksum
}

// analyse computes the statistics of every rank's band with gonum and
// combines them over comm (Chan et al.'s pairwise merge of the variances).
func analyse(comm mpi.Comm, s *slab) (fieldStats, error) {
	var fs fieldStats
	n := float64(len(s.t))
	mean, variance := stat.MeanVariance(s.t, nil)
	c := heatfile.Checksum{
		Sum:   floats.Sum(s.t),
		SumSq: floats.Dot(s.t, s.t),
		Min:   floats.Min(s.t),
		Max:   floats.Max(s.t),
	}
	w := make([]float64, len(s.t))
	for i := range w {
		w[i] = heatfile.Weight(s.y0+int64(i)/s.nx, int64(i)%s.nx)
	}
	c.WSum = floats.Dot(w, s.t)
	flux := make([]float64, len(s.flux))
	for i, v := range s.flux {
		flux[i] = float64(v)
	}
	c.FluxSum = floats.Sum(flux)

	var err error
	if fs.check, err = heatfile.Reduce(comm, c); err != nil {
		return fs, err
	}
	tot := make([]float64, 1)
	if err := mpi.AllreduceFloat64(comm, []float64{n}, tot, mpi.Sum); err != nil {
		return fs, fmt.Errorf("reduce count: %w", err)
	}
	fs.n = tot[0]
	fs.mean = fs.check.Sum / fs.n
	m2 := make([]float64, 1)
	if err := mpi.AllreduceFloat64(comm, []float64{variance*(n-1) + n*(mean-fs.mean)*(mean-fs.mean)}, m2, mpi.Sum); err != nil {
		return fs, fmt.Errorf("reduce variance: %w", err)
	}
	fs.std = math.Sqrt(m2[0] / fs.n)
	return fs, nil
}

// verify lists everything in which the data read disagrees with what the
// writer recorded for step.
func verify(fs fieldStats, s *slab, step int) []string {
	bad := heatfile.Compare(fs.check, s.want)
	if s.step != int64(step) {
		bad = append(bad, fmt.Sprintf("variable step=%d, want %d", s.step, step))
	}
	if s.attStep != int64(step) {
		bad = append(bad, fmt.Sprintf("attribute step=%d, want %d", s.attStep, step))
	}
	// The writer's sums give the variance independently of gonum's.
	wmean := s.want.Sum / fs.n
	wstd := math.Sqrt(math.Max(0, s.want.SumSq/fs.n-wmean*wmean))
	if math.Abs(fs.std-wstd) > 1e-6*math.Max(1, wstd) {
		bad = append(bad, fmt.Sprintf("std=%.12g, writer's sums give %.12g", fs.std, wstd))
	}
	return bad
}
