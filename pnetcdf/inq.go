package pnetcdf

import "github.com/couplet-hpc/couplet/nc"

// Inq returns the numbers of dimensions, variables and global attributes,
// and the record dimension id (-1 if none) (ncmpi_inq).
func (f *File) Inq() (ndims, nvars, natts, unlimdim int, err error) {
	if err = f.ok(); err != nil {
		return
	}
	return len(f.h.Dims), len(f.h.Vars), len(f.h.Atts), f.h.UnlimDim(), nil
}

// InqNDims returns the number of dimensions.
func (f *File) InqNDims() (int, error) { n, _, _, _, err := f.Inq(); return n, err }

// InqNVars returns the number of variables.
func (f *File) InqNVars() (int, error) { _, n, _, _, err := f.Inq(); return n, err }

// InqNAtts returns the number of global attributes.
func (f *File) InqNAtts() (int, error) { _, _, n, _, err := f.Inq(); return n, err }

// InqUnlimDim returns the record dimension id, or -1 if there is none.
func (f *File) InqUnlimDim() (int, error) { _, _, _, u, err := f.Inq(); return u, err }

// InqFormat returns the file's format (CDF-1, CDF-2 or CDF-5).
func (f *File) InqFormat() (nc.Format, error) {
	if err := f.ok(); err != nil {
		return 0, err
	}
	return f.h.Format, nil
}

// InqDim returns a dimension's name and length; the record dimension's
// length is the current number of records (ncmpi_inq_dim).
func (f *File) InqDim(dimid int) (string, int64, error) {
	if err := f.ok(); err != nil {
		return "", 0, err
	}
	if dimid < 0 || dimid >= len(f.h.Dims) {
		return "", 0, nc.EBADDIM
	}
	d := f.h.Dims[dimid]
	if d.Len == nc.UNLIMITED {
		if err := f.refreshRecs(); err != nil {
			return "", 0, err
		}
		return d.Name, f.h.NumRecs, nil
	}
	return d.Name, d.Len, nil
}

// InqDimID returns the id of the named dimension (EBADDIM if none).
func (f *File) InqDimID(name string) (int, error) {
	if err := f.ok(); err != nil {
		return -1, err
	}
	id, ok := f.h.DimID(name)
	if !ok {
		return -1, nc.EBADDIM
	}
	return id, nil
}

// InqDimName returns a dimension's name.
func (f *File) InqDimName(dimid int) (string, error) {
	n, _, err := f.InqDim(dimid)
	return n, err
}

// InqDimLen returns a dimension's length (the record count for the record dimension).
func (f *File) InqDimLen(dimid int) (int64, error) {
	_, l, err := f.InqDim(dimid)
	return l, err
}

// InqVar returns a variable's name, type, dimension ids and number of attributes.
func (f *File) InqVar(varid int) (name string, t nc.Type, dimids []int, natts int, err error) {
	if err = f.ok(); err != nil {
		return
	}
	if err = f.checkVarid(varid); err != nil {
		return
	}
	v := &f.h.Vars[varid]
	return v.Name, v.Type, append([]int(nil), v.Dims...), len(v.Atts), nil
}

// InqVarID returns the id of the named variable (ENOTVAR if none).
func (f *File) InqVarID(name string) (int, error) {
	if err := f.ok(); err != nil {
		return -1, err
	}
	id, ok := f.h.VarID(name)
	if !ok {
		return -1, nc.ENOTVAR
	}
	return id, nil
}

// InqVarName returns a variable's name.
func (f *File) InqVarName(varid int) (string, error) {
	n, _, _, _, err := f.InqVar(varid)
	return n, err
}

// InqVarType returns a variable's external type.
func (f *File) InqVarType(varid int) (nc.Type, error) {
	_, t, _, _, err := f.InqVar(varid)
	return t, err
}

// InqVarNDims returns a variable's number of dimensions.
func (f *File) InqVarNDims(varid int) (int, error) {
	_, _, d, _, err := f.InqVar(varid)
	return len(d), err
}

// InqVarDims returns a variable's dimension ids.
func (f *File) InqVarDims(varid int) ([]int, error) {
	_, _, d, _, err := f.InqVar(varid)
	return d, err
}

// InqVarNAtts returns a variable's number of attributes.
func (f *File) InqVarNAtts(varid int) (int, error) {
	_, _, _, n, err := f.InqVar(varid)
	return n, err
}

// InqPutSize returns the bytes this process has written through completed
// put requests, counted in the variables' external types.
func (f *File) InqPutSize() (int64, error) {
	if err := f.ok(); err != nil {
		return 0, err
	}
	return f.putBytes, nil
}

// InqGetSize returns the bytes this process has read through completed get
// requests, counted in the variables' external types.
func (f *File) InqGetSize() (int64, error) {
	if err := f.ok(); err != nil {
		return 0, err
	}
	return f.getBytes, nil
}
