package pnetcdf

import (
	"strings"
	"unicode/utf8"

	"github.com/couplet-hpc/couplet/nc"
)

// checkName applies netCDF's naming rules: non-empty valid UTF-8, no '/',
// no control characters, a letter, digit, '_' or non-ASCII first, no
// trailing space, at most nc.MAX_NAME bytes.
func checkName(name string) error {
	if name == "" || !utf8.ValidString(name) || strings.ContainsRune(name, '/') {
		return nc.EBADNAME
	}
	if len(name) > nc.MAX_NAME {
		return nc.EMAXNAME
	}
	c := name[0]
	if c < 0x80 && !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return nc.EBADNAME
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return nc.EBADNAME
		}
	}
	if name[len(name)-1] == ' ' {
		return nc.EBADNAME
	}
	return nil
}

// checkType rejects invalid types, and CDF-5 types in CDF-1 and CDF-2 files.
func (f *File) checkType(t nc.Type) error {
	if !t.Valid() {
		return nc.EBADTYPE
	}
	if t.CDF5Only() && f.h.Format != nc.Format64BitData {
		return nc.ESTRICTCDF2
	}
	return nil
}

// inDefine is the common prefix of define-mode calls.
func (f *File) inDefine() error {
	if err := f.ok(); err != nil {
		return err
	}
	if !f.define {
		return nc.ENOTINDEFINE
	}
	return nil
}

// maxDimLen is the largest fixed dimension length each format allows.
func (f *File) maxDimLen() int64 {
	switch f.h.Format {
	case nc.FormatClassic:
		return 1<<31 - 4
	case nc.Format64BitOffst:
		return 1<<32 - 4
	}
	return 1<<63 - 1
}

// DefDim defines a dimension of the given length, or the record dimension
// for nc.UNLIMITED, and returns its id (ncmpi_def_dim).
func (f *File) DefDim(name string, length int64) (int, error) {
	if err := f.inDefine(); err != nil {
		return -1, err
	}
	if err := checkName(name); err != nil {
		return -1, err
	}
	if length < 0 || length > f.maxDimLen() {
		return -1, nc.EDIMSIZE
	}
	if length == nc.UNLIMITED && f.h.UnlimDim() >= 0 {
		return -1, nc.EUNLIMIT
	}
	if _, ok := f.h.DimID(name); ok {
		return -1, nc.ENAMEINUSE
	}
	if err := f.forward(func(d Definer) error { return d.DefDim(name, length) }); err != nil {
		return -1, err
	}
	f.h.Dims = append(f.h.Dims, nc.Dim{Name: name, Len: length})
	return len(f.h.Dims) - 1, nil
}

// DefVar defines a variable of type t over the given dimensions (record
// dimension first, if any) and returns its id (ncmpi_def_var).
func (f *File) DefVar(name string, t nc.Type, dimids []int) (int, error) {
	if err := f.inDefine(); err != nil {
		return -1, err
	}
	if err := checkName(name); err != nil {
		return -1, err
	}
	if err := f.checkType(t); err != nil {
		return -1, err
	}
	if len(dimids) > 1024 {
		return -1, nc.EMAXDIMS
	}
	for i, d := range dimids {
		if d < 0 || d >= len(f.h.Dims) {
			return -1, nc.EBADDIM
		}
		if i > 0 && f.h.Dims[d].Len == nc.UNLIMITED {
			return -1, nc.EUNLIMPOS
		}
	}
	if _, ok := f.h.VarID(name); ok {
		return -1, nc.ENAMEINUSE
	}
	if err := f.forward(func(d Definer) error { return d.DefVar(name, t, dimids) }); err != nil {
		return -1, err
	}
	f.h.Vars = append(f.h.Vars, nc.Var{Name: name, Type: t, Dims: append([]int(nil), dimids...),
		NoFill: f.fillMode == nc.NOFILL})
	return len(f.h.Vars) - 1, nil
}

// RenameDim renames a dimension; in data mode the new name may not be longer.
func (f *File) RenameDim(dimid int, name string) error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.readOnly {
		return nc.EPERM
	}
	if dimid < 0 || dimid >= len(f.h.Dims) {
		return nc.EBADDIM
	}
	if err := checkName(name); err != nil {
		return err
	}
	if _, ok := f.h.DimID(name); ok {
		return nc.ENAMEINUSE
	}
	if !f.define && len(name) > len(f.h.Dims[dimid].Name) {
		return nc.ENOTINDEFINE
	}
	if err := f.forward(func(d Definer) error { return d.RenameDim(dimid, name) }); err != nil {
		return err
	}
	f.h.Dims[dimid].Name = name
	return nil
}

// RenameVar renames a variable; in data mode the new name may not be longer.
func (f *File) RenameVar(varid int, name string) error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.readOnly {
		return nc.EPERM
	}
	if err := f.checkVarid(varid); err != nil {
		return err
	}
	if err := checkName(name); err != nil {
		return err
	}
	if _, ok := f.h.VarID(name); ok {
		return nc.ENAMEINUSE
	}
	if !f.define && len(name) > len(f.h.Vars[varid].Name) {
		return nc.ENOTINDEFINE
	}
	if err := f.forward(func(d Definer) error { return d.RenameVar(varid, name) }); err != nil {
		return err
	}
	f.h.Vars[varid].Name = name
	return nil
}

// forward hands a validated header edit to a Definer backend, which keeps a
// header of its own. Any other backend takes the whole header at EndDef, so
// in define mode there is nothing to forward; in data mode its readers hold
// the header of the last EndDef already, so the edit needs define mode.
func (f *File) forward(edit func(Definer) error) error {
	if f.def != nil {
		return edit(f.def)
	}
	if !f.define {
		return nc.ENOTINDEFINE
	}
	return nil
}

// checkVarid reports ENOTVAR for an id that names no variable.
func (f *File) checkVarid(varid int) error {
	if varid < 0 || varid >= len(f.h.Vars) {
		return nc.ENOTVAR
	}
	return nil
}

// SetFill sets the fill mode (nc.FILL or nc.NOFILL) of the file and of its
// variables, and returns the previous mode (ncmpi_set_fill). PnetCDF's default
// is nc.NOFILL.
func (f *File) SetFill(mode int) (old int, err error) {
	if err := f.inDefine(); err != nil {
		return 0, err
	}
	if mode != nc.FILL && mode != nc.NOFILL {
		return 0, nc.EINVAL
	}
	if err := f.forward(func(d Definer) error { return d.SetFill(mode) }); err != nil {
		return 0, err
	}
	old, f.fillMode = f.fillMode, mode
	for i := range f.h.Vars {
		f.h.Vars[i].NoFill = mode == nc.NOFILL
	}
	return old, nil
}

// DefVarFill sets variable varid's fill mode and, when fill is not nil, its
// fill value (one element, stored as the _FillValue attribute)
// (ncmpi_def_var_fill).
func DefVarFill[T nc.Elem](f *File, varid int, noFill bool, fill []T) error {
	if err := f.inDefine(); err != nil {
		return err
	}
	if err := f.checkVarid(varid); err != nil {
		return err
	}
	var raw []byte
	if fill != nil {
		v := &f.h.Vars[varid]
		if len(fill) != 1 {
			return nc.EINVAL
		}
		if nc.TypeOf[T]() != v.Type {
			return nc.EBADTYPE
		}
		raw = append([]byte(nil), nc.Bytes(fill)...)
	}
	if err := f.forward(func(d Definer) error { return d.DefVarFill(varid, noFill, raw) }); err != nil {
		return err
	}
	v := &f.h.Vars[varid]
	v.NoFill = noFill
	if raw != nil {
		setAtt(&v.Atts, nc.Att{Name: "_FillValue", Type: v.Type, Data: raw})
	}
	return nil
}

// InqVarFill returns variable varid's fill mode and fill value: its
// _FillValue attribute if set, else the type's default (ncmpi_inq_var_fill).
func InqVarFill[T nc.Elem](f *File, varid int) (noFill bool, fill T, err error) {
	if err = f.ok(); err != nil {
		return
	}
	if err = f.checkVarid(varid); err != nil {
		return
	}
	v := &f.h.Vars[varid]
	if nc.TypeOf[T]() != v.Type {
		return false, fill, nc.EBADTYPE
	}
	raw := nc.FillBytes(v.Type)
	if a := findAtt(v.Atts, "_FillValue"); a != nil {
		raw = a.Data
	}
	return v.NoFill, nc.Elems[T](append([]byte(nil), raw...))[0], nil
}
