package pnetcdf

import "github.com/couplet-hpc/couplet/nc"

// varBytes is the size of the accesses in the variable's external type.
func (f *File) varBytes(reqs []nc.Access) int64 {
	n := int64(0)
	for i := range reqs {
		n += reqs[i].Len() * int64(f.h.Vars[reqs[i].Var].Type.Size())
	}
	return n
}

// blocking runs a blocking put or get. A collective call that fails
// validation with a non-fatal error still takes part in the collective I/O
// with no data, as PnetCDF does, so that the other ranks do not hang.
func (f *File) blocking(c call) error {
	reqs, err := f.prepare(&c)
	if err != nil {
		if c.coll && f.nprocs > 1 && !fatal(err) {
			if c.op.isPut() {
				_ = f.b.Put(nil, true)
			} else {
				_ = f.b.Get(nil, true)
			}
			if c.op.isPut() {
				_ = f.refreshRecs()
			}
		}
		return err
	}
	if c.op.isPut() {
		err = f.b.Put(reqs, c.coll)
	} else {
		err = f.b.Get(reqs, c.coll)
	}
	if err != nil && nc.Code(err) != nc.ERANGE {
		return err
	}
	if c.op.isPut() {
		f.putBytes += f.varBytes(reqs)
		if rerr := f.refreshRecs(); rerr != nil && err == nil {
			err = rerr
		}
	} else {
		f.getBytes += f.varBytes(reqs)
	}
	return err
}

// PutVar writes the whole variable (ncmpi_put_var_<type>), independent data mode.
func PutVar[T nc.Elem](f *File, varid int, buf []T) error {
	return f.blocking(with(call{op: opPut, fam: famVar, varid: varid}, buf))
}

// PutVarAll writes the whole variable collectively (ncmpi_put_var_<type>_all).
func PutVarAll[T nc.Elem](f *File, varid int, buf []T) error {
	return f.blocking(with(call{op: opPut, coll: true, fam: famVar, varid: varid}, buf))
}

// PutVar1 writes buf[0] at index (ncmpi_put_var1_<type>), independent data mode.
func PutVar1[T nc.Elem](f *File, varid int, index []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, fam: famVar1, varid: varid, start: index}, buf))
}

// PutVar1All writes buf[0] at index collectively (ncmpi_put_var1_<type>_all).
func PutVar1All[T nc.Elem](f *File, varid int, index []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, coll: true, fam: famVar1, varid: varid, start: index}, buf))
}

// PutVara writes the block start+count from buf in C order (ncmpi_put_vara_<type>), independent.
func PutVara[T nc.Elem](f *File, varid int, start, count []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, fam: famVara, varid: varid, start: start, count: count}, buf))
}

// PutVaraAll writes the block start+count collectively (ncmpi_put_vara_<type>_all).
func PutVaraAll[T nc.Elem](f *File, varid int, start, count []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, coll: true, fam: famVara, varid: varid, start: start, count: count}, buf))
}

// PutVars writes a strided block (ncmpi_put_vars_<type>), independent; nil stride means ones.
func PutVars[T nc.Elem](f *File, varid int, start, count, stride []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, fam: famVars, varid: varid, start: start, count: count, stride: stride}, buf))
}

// PutVarsAll writes a strided block collectively (ncmpi_put_vars_<type>_all).
func PutVarsAll[T nc.Elem](f *File, varid int, start, count, stride []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, coll: true, fam: famVars, varid: varid, start: start, count: count, stride: stride}, buf))
}

// PutVarm writes a strided block whose buffer layout is given by imap, in
// elements per dimension (ncmpi_put_varm_<type>), independent; nil imap means C order.
func PutVarm[T nc.Elem](f *File, varid int, start, count, stride, imap []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, fam: famVarm, varid: varid, start: start, count: count, stride: stride, imap: imap}, buf))
}

// PutVarmAll is PutVarm, collectively (ncmpi_put_varm_<type>_all).
func PutVarmAll[T nc.Elem](f *File, varid int, start, count, stride, imap []int64, buf []T) error {
	return f.blocking(with(call{op: opPut, coll: true, fam: famVarm, varid: varid, start: start, count: count, stride: stride, imap: imap}, buf))
}

// PutVarn writes several blocks, taking their data from buf one after the
// other (ncmpi_put_varn_<type>), independent. A nil counts (or counts[i])
// means single elements.
func PutVarn[T nc.Elem](f *File, varid int, starts, counts [][]int64, buf []T) error {
	return f.blocking(with(call{op: opPut, fam: famVarn, varid: varid, starts: starts, counts: counts}, buf))
}

// PutVarnAll is PutVarn, collectively (ncmpi_put_varn_<type>_all).
func PutVarnAll[T nc.Elem](f *File, varid int, starts, counts [][]int64, buf []T) error {
	return f.blocking(with(call{op: opPut, coll: true, fam: famVarn, varid: varid, starts: starts, counts: counts}, buf))
}

// GetVar reads the whole variable (ncmpi_get_var_<type>), independent data mode.
func GetVar[T nc.Elem](f *File, varid int, buf []T) error {
	return f.blocking(with(call{op: opGet, fam: famVar, varid: varid}, buf))
}

// GetVarAll reads the whole variable collectively (ncmpi_get_var_<type>_all).
func GetVarAll[T nc.Elem](f *File, varid int, buf []T) error {
	return f.blocking(with(call{op: opGet, coll: true, fam: famVar, varid: varid}, buf))
}

// GetVar1 reads the element at index into buf[0] (ncmpi_get_var1_<type>), independent.
func GetVar1[T nc.Elem](f *File, varid int, index []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, fam: famVar1, varid: varid, start: index}, buf))
}

// GetVar1All reads the element at index collectively (ncmpi_get_var1_<type>_all).
func GetVar1All[T nc.Elem](f *File, varid int, index []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, coll: true, fam: famVar1, varid: varid, start: index}, buf))
}

// GetVara reads the block start+count into buf in C order (ncmpi_get_vara_<type>), independent.
func GetVara[T nc.Elem](f *File, varid int, start, count []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, fam: famVara, varid: varid, start: start, count: count}, buf))
}

// GetVaraAll reads the block start+count collectively (ncmpi_get_vara_<type>_all).
func GetVaraAll[T nc.Elem](f *File, varid int, start, count []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, coll: true, fam: famVara, varid: varid, start: start, count: count}, buf))
}

// GetVars reads a strided block (ncmpi_get_vars_<type>), independent; nil stride means ones.
func GetVars[T nc.Elem](f *File, varid int, start, count, stride []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, fam: famVars, varid: varid, start: start, count: count, stride: stride}, buf))
}

// GetVarsAll reads a strided block collectively (ncmpi_get_vars_<type>_all).
func GetVarsAll[T nc.Elem](f *File, varid int, start, count, stride []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, coll: true, fam: famVars, varid: varid, start: start, count: count, stride: stride}, buf))
}

// GetVarm reads a strided block into the buffer layout given by imap
// (ncmpi_get_varm_<type>), independent.
func GetVarm[T nc.Elem](f *File, varid int, start, count, stride, imap []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, fam: famVarm, varid: varid, start: start, count: count, stride: stride, imap: imap}, buf))
}

// GetVarmAll is GetVarm, collectively (ncmpi_get_varm_<type>_all).
func GetVarmAll[T nc.Elem](f *File, varid int, start, count, stride, imap []int64, buf []T) error {
	return f.blocking(with(call{op: opGet, coll: true, fam: famVarm, varid: varid, start: start, count: count, stride: stride, imap: imap}, buf))
}

// GetVarn reads several blocks into buf one after the other (ncmpi_get_varn_<type>), independent.
func GetVarn[T nc.Elem](f *File, varid int, starts, counts [][]int64, buf []T) error {
	return f.blocking(with(call{op: opGet, fam: famVarn, varid: varid, starts: starts, counts: counts}, buf))
}

// GetVarnAll is GetVarn, collectively (ncmpi_get_varn_<type>_all).
func GetVarnAll[T nc.Elem](f *File, varid int, starts, counts [][]int64, buf []T) error {
	return f.blocking(with(call{op: opGet, coll: true, fam: famVarn, varid: varid, starts: starts, counts: counts}, buf))
}
