package main

import (
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// slab is what this rank read of one step file: a band of whole rows, plus
// what the writer recorded about the whole field.
type slab struct {
	ny, nx   int64 // global shape
	y0, rows int64 // this rank's band
	t        []float64
	flux     []float32
	step     int64             // the step variable
	attStep  int64             // the step attribute
	want     heatfile.Checksum // the writer's checksum attributes
	read     time.Duration     // time in the data calls on this rank
	bytes    int64             // bytes this rank read, in the variables' types
}

// readStep opens path on comm and reads this rank's band of rows: blocking
// collective gets (implicit epoch), or with explicit nonblocking gets
// completed by dtf.Transfer and WaitAll.
func readStep(comm mpi.Comm, path string, explicit bool) (s *slab, err error) {
	f, err := pnetcdf.Open(comm, path, nc.NOWRITE)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	s = &slab{}
	ids, err := inquire(f, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	size, rank := comm.Size(), comm.Rank()
	if s.ny < int64(size) {
		return nil, fmt.Errorf("%s: %d rows cannot be split over %d ranks", path, s.ny, size)
	}
	s.y0 = s.ny * int64(rank) / int64(size)
	s.rows = s.ny*int64(rank+1)/int64(size) - s.y0
	s.t = make([]float64, s.rows*s.nx)
	s.flux = make([]float32, s.rows*s.nx)
	step := make([]int64, 1)
	start, count := []int64{s.y0, 0}, []int64{s.rows, s.nx}
	t0 := time.Now()
	if explicit {
		err = getExplicit(f, path, ids, start, count, s, step)
	} else {
		err = getBlocking(f, ids, start, count, s, step)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.read = time.Since(t0)
	s.step = step[0]
	s.bytes = int64(len(s.t))*8 + int64(len(s.flux))*4 + 8
	return s, nil
}

// varIDs are the ids of the step file's variables.
type varIDs struct{ t, flux, step int }

// inquire reads the shape, checks the variables' types and reads the
// writer's attributes, all from the header.
func inquire(f *pnetcdf.File, s *slab) (ids varIDs, err error) {
	for _, d := range []struct {
		name string
		n    *int64
	}{{heatfile.DimY, &s.ny}, {heatfile.DimX, &s.nx}} {
		id, err := f.InqDimID(d.name)
		if err != nil {
			return ids, fmt.Errorf("dimension %s: %w", d.name, err)
		}
		if *d.n, err = f.InqDimLen(id); err != nil {
			return ids, err
		}
	}
	for _, v := range []struct {
		name string
		id   *int
		typ  nc.Type
	}{{heatfile.VarT, &ids.t, nc.DOUBLE}, {heatfile.VarFlux, &ids.flux, nc.FLOAT}, {heatfile.VarStep, &ids.step, nc.INT64}} {
		if *v.id, err = f.InqVarID(v.name); err != nil {
			return ids, fmt.Errorf("variable %s: %w", v.name, err)
		}
		if t, err := f.InqVarType(*v.id); err != nil || t != v.typ {
			return ids, fmt.Errorf("variable %s has type %v (%v), want %v", v.name, t, err, v.typ)
		}
	}
	st, err := pnetcdf.GetAtt[int64](f, nc.GLOBAL, heatfile.AttStep)
	if err != nil || len(st) != 1 {
		return ids, fmt.Errorf("attribute %s: %v (%d values)", heatfile.AttStep, err, len(st))
	}
	s.attStep = st[0]
	w := &s.want
	for _, a := range []struct {
		name string
		v    *float64
	}{
		{heatfile.AttSum, &w.Sum}, {heatfile.AttSumSq, &w.SumSq}, {heatfile.AttWSum, &w.WSum},
		{heatfile.AttMin, &w.Min}, {heatfile.AttMax, &w.Max}, {heatfile.AttFlux, &w.FluxSum},
	} {
		vals, err := pnetcdf.GetAtt[float64](f, nc.GLOBAL, a.name)
		if err != nil || len(vals) != 1 {
			return ids, fmt.Errorf("attribute %s: %v (%d values)", a.name, err, len(vals))
		}
		*a.v = vals[0]
	}
	return ids, nil
}

// getBlocking reads with blocking collective gets: each returns once its
// data is in the buffer.
func getBlocking(f *pnetcdf.File, ids varIDs, start, count []int64, s *slab, step []int64) error {
	if err := pnetcdf.GetVaraAll(f, ids.t, start, count, s.t); err != nil {
		return fmt.Errorf("get %s: %w", heatfile.VarT, err)
	}
	if err := pnetcdf.GetVaraAll(f, ids.flux, start, count, s.flux); err != nil {
		return fmt.Errorf("get %s: %w", heatfile.VarFlux, err)
	}
	if err := pnetcdf.GetVarAll(f, ids.step, step); err != nil {
		return fmt.Errorf("get %s: %w", heatfile.VarStep, err)
	}
	return nil
}

// getExplicit posts nonblocking gets, ends the epoch with dtf.Transfer when
// the file is coupled in transfer mode, and completes them with WaitAll.
func getExplicit(f *pnetcdf.File, path string, ids varIDs, start, count []int64, s *slab, step []int64) error {
	var reqs []int
	post := func(id int, err error) error {
		reqs = append(reqs, id)
		return err
	}
	if err := post(pnetcdf.IGetVara(f, ids.t, start, count, s.t)); err != nil {
		return fmt.Errorf("iget %s: %w", heatfile.VarT, err)
	}
	if err := post(pnetcdf.IGetVara(f, ids.flux, start, count, s.flux)); err != nil {
		return fmt.Errorf("iget %s: %w", heatfile.VarFlux, err)
	}
	if err := post(pnetcdf.IGetVar(f, ids.step, step)); err != nil {
		return fmt.Errorf("iget %s: %w", heatfile.VarStep, err)
	}
	if heatfile.TransferCoupled(path) {
		if err := dtf.Transfer(path); err != nil {
			return err
		}
	}
	sts, err := f.WaitAll(len(reqs), reqs)
	if err != nil {
		return fmt.Errorf("wait_all: %w", err)
	}
	for i, e := range sts {
		if e != nil {
			return fmt.Errorf("request %d: %w", i, e)
		}
	}
	return nil
}
