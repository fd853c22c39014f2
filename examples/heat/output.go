package main

import (
	"fmt"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// stepFile is what one output step writes.
type stepFile struct {
	path  string
	step  int64
	time  float64
	t     []float64 // this rank's block of T
	flux  []float32 // this rank's block of flux
	check heatfile.Checksum
}

// snapshot takes this step's output from the grid: the blocks and the global
// checksum, which must be known before the header is written.
func (g *grid) snapshot(path string, step int64) (*stepFile, error) {
	if err := g.exchange(); err != nil {
		return nil, err
	}
	s := &stepFile{path: path, step: step, time: float64(step) * alpha, t: g.block(), flux: g.flux()}
	c := heatfile.Empty()
	c.AddBlock(s.t, g.y0, g.x0, g.lx)
	c.AddFlux(s.flux)
	var err error
	s.check, err = heatfile.Reduce(g.comm, c)
	return s, err
}

// write creates the step file collectively and writes this rank's block.
// With explicit, a file coupled in transfer mode ends its epoch with
// dtf.Transfer before the close.
func (g *grid) write(s *stepFile, explicit bool) (err error) {
	f, err := pnetcdf.Create(g.comm, s.path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return fmt.Errorf("create %s: %w", s.path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", s.path, cerr)
		}
	}()
	vt, vf, vs, err := define(f, g.ny, g.nx, s)
	if err != nil {
		return fmt.Errorf("define %s: %w", s.path, err)
	}
	start, count := []int64{g.y0, g.x0}, []int64{g.ly, g.lx}
	if err := pnetcdf.PutVaraAll(f, vt, start, count, s.t); err != nil {
		return fmt.Errorf("put %s: %w", heatfile.VarT, err)
	}
	if err := pnetcdf.PutVaraAll(f, vf, start, count, s.flux); err != nil {
		return fmt.Errorf("put %s: %w", heatfile.VarFlux, err)
	}
	// The scalar is written once, by rank 0, in independent data mode.
	if err := f.BeginIndepData(); err != nil {
		return err
	}
	if g.comm.Rank() == 0 {
		if err := pnetcdf.PutVar1(f, vs, nil, []int64{s.step}); err != nil {
			return fmt.Errorf("put %s: %w", heatfile.VarStep, err)
		}
	}
	if err := f.EndIndepData(); err != nil {
		return err
	}
	if explicit && heatfile.TransferCoupled(s.path) {
		if err := dtf.Transfer(s.path); err != nil {
			return err
		}
	}
	return nil
}

// define writes the header: dimensions, variables, and the checksum as
// global attributes.
func define(f *pnetcdf.File, ny, nx int64, s *stepFile) (vt, vf, vs int, err error) {
	dy, err := f.DefDim(heatfile.DimY, ny)
	if err != nil {
		return
	}
	dx, err := f.DefDim(heatfile.DimX, nx)
	if err != nil {
		return
	}
	if vt, err = f.DefVar(heatfile.VarT, nc.DOUBLE, []int{dy, dx}); err != nil {
		return
	}
	if vf, err = f.DefVar(heatfile.VarFlux, nc.FLOAT, []int{dy, dx}); err != nil {
		return
	}
	if vs, err = f.DefVar(heatfile.VarStep, nc.INT64, nil); err != nil {
		return
	}
	texts := []struct {
		varid      int
		name, text string
	}{
		{nc.GLOBAL, "title", "couplet heat example: 2-D explicit heat diffusion"},
		{vt, "long_name", "temperature"},
		{vt, "units", "K"},
		{vf, "long_name", "magnitude of the temperature gradient"},
		{vf, "units", "K/cell"},
	}
	for _, a := range texts {
		if err = f.PutAttText(a.varid, a.name, a.text); err != nil {
			return
		}
	}
	if err = pnetcdf.PutAtt(f, nc.GLOBAL, heatfile.AttStep, nc.INT64, []int64{s.step}); err != nil {
		return
	}
	c := s.check
	doubles := []struct {
		name string
		v    float64
	}{
		{heatfile.AttTime, s.time},
		{heatfile.AttSum, c.Sum}, {heatfile.AttSumSq, c.SumSq}, {heatfile.AttWSum, c.WSum},
		{heatfile.AttMin, c.Min}, {heatfile.AttMax, c.Max}, {heatfile.AttFlux, c.FluxSum},
	}
	for _, a := range doubles {
		if err = pnetcdf.PutAtt(f, nc.GLOBAL, a.name, nc.DOUBLE, []float64{a.v}); err != nil {
			return
		}
	}
	err = f.EndDef()
	return
}
