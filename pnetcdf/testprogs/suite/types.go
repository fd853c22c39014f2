package main

import (
	"fmt"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// Every type is written with every family, collectively and independently,
// into its own 2-D variable of (2*nprocs) x nx; rank r owns rows 2r and 2r+1.
const nx = 6

var families = []string{"var", "var1", "vara", "vars", "varm", "varn"}

func runTypes(path string) {
	f, err := pnetcdf.Create(world, path, nc.CLOBBER|nc.BIT64_DATA)
	must(err, "create %s", path)
	y, err := f.DefDim("y", int64(2*nprocs))
	must(err, "def y")
	x, err := f.DefDim("x", nx)
	must(err, "def x")
	for _, t := range nc.AllTypes {
		for _, fam := range families {
			for _, mode := range []string{"c", "i"} {
				_, err := f.DefVar(fmt.Sprintf("%s_%s_%s", t, fam, mode), t, []int{y, x})
				must(err, "def var")
			}
		}
	}
	must(f.EndDef(), "enddef")
	typed[int8](f)
	typed[nc.Text](f)
	typed[int16](f)
	typed[int32](f)
	typed[float32](f)
	typed[float64](f)
	typed[uint8](f)
	typed[uint16](f)
	typed[uint32](f)
	typed[int64](f)
	typed[uint64](f)
	must(f.Close(), "close")

	// Read everything back in another decomposition, from a fresh open.
	f, err = pnetcdf.Open(world, path, nc.NOWRITE)
	must(err, "open %s", path)
	readTyped[int8](f)
	readTyped[nc.Text](f)
	readTyped[int16](f)
	readTyped[int32](f)
	readTyped[float32](f)
	readTyped[float64](f)
	readTyped[uint8](f)
	readTyped[uint16](f)
	readTyped[uint32](f)
	readTyped[int64](f)
	readTyped[uint64](f)
	must(f.Close(), "close")
}

// block returns the rows [r0, r0+2) x all columns of the global array, in C order.
func block[T nc.Elem](r0 int64) []T {
	b := make([]T, 2*nx)
	for i := range b {
		b[i] = value[T](r0*nx + int64(i))
	}
	return b
}

func whole[T nc.Elem]() []T {
	b := make([]T, 2*nprocs*nx)
	for i := range b {
		b[i] = value[T](int64(i))
	}
	return b
}

// put writes this rank's rows with family fam, collectively or not.
func put[T nc.Elem](f *pnetcdf.File, varid int, fam string, coll bool, r0 int64) error {
	b := block[T](r0)
	start, count := []int64{r0, 0}, []int64{2, nx}
	switch fam {
	case "var":
		if coll {
			return pnetcdf.PutVarAll(f, varid, whole[T]())
		}
		return pnetcdf.PutVar(f, varid, whole[T]())
	case "var1":
		for i := int64(0); i < 2*nx; i++ {
			idx := []int64{r0 + i/nx, i % nx}
			var err error
			if coll {
				err = pnetcdf.PutVar1All(f, varid, idx, b[i:i+1])
			} else {
				err = pnetcdf.PutVar1(f, varid, idx, b[i:i+1])
			}
			if err != nil {
				return err
			}
		}
		return nil
	case "vara":
		if coll {
			return pnetcdf.PutVaraAll(f, varid, start, count, b)
		}
		return pnetcdf.PutVara(f, varid, start, count, b)
	case "vars": // even columns, then odd columns
		for c := int64(0); c < 2; c++ {
			sub := make([]T, 0, nx)
			for i := int64(0); i < 2; i++ {
				for j := c; j < nx; j += 2 {
					sub = append(sub, b[i*nx+j])
				}
			}
			st, ct, sd := []int64{r0, c}, []int64{2, nx / 2}, []int64{1, 2}
			var err error
			if coll {
				err = pnetcdf.PutVarsAll(f, varid, st, ct, sd, sub)
			} else {
				err = pnetcdf.PutVars(f, varid, st, ct, sd, sub)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case "varm": // the buffer is the block transposed (column-major)
		tr := make([]T, len(b))
		for i := 0; i < 2; i++ {
			for j := 0; j < nx; j++ {
				tr[j*2+i] = b[i*nx+j]
			}
		}
		imap := []int64{1, 2}
		if coll {
			return pnetcdf.PutVarmAll(f, varid, start, count, nil, imap, tr)
		}
		return pnetcdf.PutVarm(f, varid, start, count, nil, imap, tr)
	case "varn": // the second row first, then the first
		starts := [][]int64{{r0 + 1, 0}, {r0, 0}}
		counts := [][]int64{{1, nx}, {1, nx}}
		buf := append(append([]T{}, b[nx:]...), b[:nx]...)
		if coll {
			return pnetcdf.PutVarnAll(f, varid, starts, counts, buf)
		}
		return pnetcdf.PutVarn(f, varid, starts, counts, buf)
	}
	return fmt.Errorf("family %q", fam)
}

// get reads rows [r0, r0+2) with family fam into C order.
func get[T nc.Elem](f *pnetcdf.File, varid int, fam string, coll bool, r0 int64) ([]T, error) {
	b := make([]T, 2*nx)
	start, count := []int64{r0, 0}, []int64{2, nx}
	var err error
	switch fam {
	case "var":
		w := make([]T, 2*nprocs*nx)
		if coll {
			err = pnetcdf.GetVarAll(f, varid, w)
		} else {
			err = pnetcdf.GetVar(f, varid, w)
		}
		copy(b, w[r0*nx:])
	case "var1":
		for i := int64(0); i < 2*nx && err == nil; i++ {
			idx := []int64{r0 + i/nx, i % nx}
			if coll {
				err = pnetcdf.GetVar1All(f, varid, idx, b[i:i+1])
			} else {
				err = pnetcdf.GetVar1(f, varid, idx, b[i:i+1])
			}
		}
	case "vara":
		if coll {
			err = pnetcdf.GetVaraAll(f, varid, start, count, b)
		} else {
			err = pnetcdf.GetVara(f, varid, start, count, b)
		}
	case "vars":
		for c := int64(0); c < 2 && err == nil; c++ {
			sub := make([]T, nx)
			st, ct, sd := []int64{r0, c}, []int64{2, nx / 2}, []int64{1, 2}
			if coll {
				err = pnetcdf.GetVarsAll(f, varid, st, ct, sd, sub)
			} else {
				err = pnetcdf.GetVars(f, varid, st, ct, sd, sub)
			}
			k := 0
			for i := int64(0); i < 2; i++ {
				for j := c; j < nx; j += 2 {
					b[i*nx+j] = sub[k]
					k++
				}
			}
		}
	case "varm":
		tr := make([]T, len(b))
		imap := []int64{1, 2}
		if coll {
			err = pnetcdf.GetVarmAll(f, varid, start, count, nil, imap, tr)
		} else {
			err = pnetcdf.GetVarm(f, varid, start, count, nil, imap, tr)
		}
		for i := 0; i < 2; i++ {
			for j := 0; j < nx; j++ {
				b[i*nx+j] = tr[j*2+i]
			}
		}
	case "varn":
		starts := [][]int64{{r0 + 1, 0}, {r0, 0}}
		counts := [][]int64{{1, nx}, {1, nx}}
		buf := make([]T, 2*nx)
		if coll {
			err = pnetcdf.GetVarnAll(f, varid, starts, counts, buf)
		} else {
			err = pnetcdf.GetVarn(f, varid, starts, counts, buf)
		}
		copy(b, buf[nx:])
		copy(b[nx:], buf[:nx])
	}
	return b, err
}

func typed[T nc.Elem](f *pnetcdf.File) {
	t := nc.TypeOf[T]()
	r0 := int64(2 * rank)
	for _, fam := range families {
		id, err := f.InqVarID(fmt.Sprintf("%s_%s_c", t, fam))
		must(err, "inq varid")
		must(put[T](f, id, fam, true, r0), "put %s %s collective", t, fam)
	}
	must(f.BeginIndepData(), "begin indep")
	for _, fam := range families {
		id, err := f.InqVarID(fmt.Sprintf("%s_%s_i", t, fam))
		must(err, "inq varid")
		must(put[T](f, id, fam, false, r0), "put %s %s independent", t, fam)
	}
	must(f.EndIndepData(), "end indep")
}

func readTyped[T nc.Elem](f *pnetcdf.File) {
	t := nc.TypeOf[T]()
	r0 := int64(2 * ((rank + 1) % nprocs)) // another rank's rows
	check := func(name string, b []T) {
		want := block[T](r0)
		for i := range b {
			if b[i] != want[i] {
				mpitest.Fail(rank, "%s: element %d of rows %d.. is %v, want %v", name, i, r0, b[i], want[i])
				return
			}
		}
	}
	for _, fam := range families {
		for _, mode := range []string{"c", "i"} {
			name := fmt.Sprintf("%s_%s_%s", t, fam, mode)
			id, err := f.InqVarID(name)
			must(err, "inq varid")
			b, err := get[T](f, id, fam, true, r0)
			must(err, "get %s %s collective", name, fam)
			check(name+" (collective "+fam+")", b)
		}
	}
	must(f.BeginIndepData(), "begin indep")
	for _, fam := range families {
		name := fmt.Sprintf("%s_%s_c", t, fam)
		id, _ := f.InqVarID(name)
		b, err := get[T](f, id, fam, false, r0)
		must(err, "get %s %s independent", name, fam)
		check(name+" (independent "+fam+")", b)
	}
	must(f.EndIndepData(), "end indep")
	// A numeric variable read into another numeric type converts as in C.
	if t != nc.CHAR {
		id, _ := f.InqVarID(fmt.Sprintf("%s_vara_c", t))
		d := make([]float64, 2*nx)
		must(pnetcdf.GetVaraAll(f, id, []int64{r0, 0}, []int64{2, nx}, d), "get %s as double", t)
		for i := range d {
			if d[i] != float64((r0*nx+int64(i))%100) {
				mpitest.Fail(rank, "%s read as double: element %d is %v", t, i, d[i])
				break
			}
		}
	}
}
