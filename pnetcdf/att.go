package pnetcdf

import "github.com/couplet-hpc/couplet/nc"

// findAtt returns the named attribute in atts, or nil.
func findAtt(atts []nc.Att, name string) *nc.Att {
	for i := range atts {
		if atts[i].Name == name {
			return &atts[i]
		}
	}
	return nil
}

// setAtt replaces the named attribute in place or appends it.
func setAtt(atts *[]nc.Att, a nc.Att) {
	if old := findAtt(*atts, a.Name); old != nil {
		*old = a
		return
	}
	*atts = append(*atts, a)
}

// attList returns the attributes of varid (nc.GLOBAL for the file's), or ENOTVAR.
func (f *File) attList(varid int) (*[]nc.Att, error) {
	if varid != nc.GLOBAL {
		if err := f.checkVarid(varid); err != nil {
			return nil, err
		}
	}
	return f.h.AttList(varid), nil
}

// lookupAtt finds attribute name of varid, with EBADID, ENOTVAR, ENOTATT.
func (f *File) lookupAtt(varid int, name string) (*nc.Att, error) {
	if err := f.ok(); err != nil {
		return nil, err
	}
	atts, err := f.attList(varid)
	if err != nil {
		return nil, err
	}
	a := findAtt(*atts, name)
	if a == nil {
		return nil, nc.ENOTATT
	}
	return a, nil
}

// PutAtt stores vals as attribute name of varid (nc.GLOBAL for a global
// attribute) with external type xtype, converting as ncmpi_put_att_<type>
// does (ECHAR for text/number mixes, ERANGE for values that do not fit, in
// which case the attribute is still written). In data mode an existing
// attribute may be overwritten if it does not grow; anything else needs
// define mode.
func PutAtt[T nc.Elem](f *File, varid int, name string, xtype nc.Type, vals []T) error {
	return f.putAtt(varid, name, xtype, nc.Bytes(vals), nc.TypeOf[T]())
}

// PutAttText stores s as the NC_CHAR attribute name of varid (ncmpi_put_att_text).
func (f *File) PutAttText(varid int, name, s string) error {
	return f.putAtt(varid, name, nc.CHAR, []byte(s), nc.CHAR)
}

func (f *File) putAtt(varid int, name string, xtype nc.Type, raw []byte, bt nc.Type) error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.readOnly {
		return nc.EPERM
	}
	atts, err := f.attList(varid)
	if err != nil {
		return err
	}
	if err := checkName(name); err != nil {
		return err
	}
	if err := f.checkType(xtype); err != nil {
		return err
	}
	if (xtype == nc.CHAR) != (bt == nc.CHAR) {
		return nc.ECHAR
	}
	n := len(raw) / bt.Size()
	if name == "_FillValue" && varid != nc.GLOBAL {
		switch {
		case !f.define:
			return nc.ENOTINDEFINE
		case xtype != f.h.Vars[varid].Type:
			return nc.EBADTYPE
		case n != 1:
			return nc.EINVAL
		}
	}
	old := findAtt(*atts, name)
	if !f.define && (old == nil || int64(n)*int64(xtype.Size()) > int64(len(old.Data))) {
		return nc.ENOTINDEFINE
	}
	a := nc.Att{Name: name, Type: xtype, Data: make([]byte, n*xtype.Size())}
	cerr := nc.Convert(a.Data, xtype, raw, bt)
	if cerr != nil && cerr != nc.ERANGE {
		return cerr
	}
	if err := f.forward(func(d Definer) error { return d.PutAtt(varid, a) }); err != nil {
		return err
	}
	setAtt(atts, a)
	return cerr
}

// GetAtt returns attribute name of varid converted to T (ncmpi_get_att_<type>):
// ECHAR for text/number mixes, ERANGE (with the converted values) when a
// value does not fit T.
func GetAtt[T nc.Elem](f *File, varid int, name string) ([]T, error) {
	a, err := f.lookupAtt(varid, name)
	if err != nil {
		return nil, err
	}
	return nc.AttValues[T](*a)
}

// GetAttText returns the NC_CHAR attribute name of varid as a string.
func (f *File) GetAttText(varid int, name string) (string, error) {
	v, err := GetAtt[nc.Text](f, varid, name)
	if err != nil {
		return "", err
	}
	return string(nc.Bytes(v)), nil
}

// InqAtt returns the external type and length of attribute name of varid.
func (f *File) InqAtt(varid int, name string) (nc.Type, int64, error) {
	a, err := f.lookupAtt(varid, name)
	if err != nil {
		return nc.NAT, 0, err
	}
	return a.Type, a.Len(), nil
}

// InqAttID returns the number of attribute name of varid.
func (f *File) InqAttID(varid int, name string) (int, error) {
	if _, err := f.lookupAtt(varid, name); err != nil {
		return -1, err
	}
	atts, _ := f.attList(varid)
	for i, a := range *atts {
		if a.Name == name {
			return i, nil
		}
	}
	return -1, nc.ENOTATT
}

// InqAttName returns the name of attribute number attnum of varid.
func (f *File) InqAttName(varid, attnum int) (string, error) {
	if err := f.ok(); err != nil {
		return "", err
	}
	atts, err := f.attList(varid)
	if err != nil {
		return "", err
	}
	if attnum < 0 || attnum >= len(*atts) {
		return "", nc.ENOTATT
	}
	return (*atts)[attnum].Name, nil
}

// DelAtt deletes attribute name of varid (define mode only).
func (f *File) DelAtt(varid int, name string) error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.readOnly {
		return nc.EPERM
	}
	if !f.define {
		return nc.ENOTINDEFINE
	}
	if _, err := f.lookupAtt(varid, name); err != nil {
		return err
	}
	if err := f.forward(func(d Definer) error { return d.DelAtt(varid, name) }); err != nil {
		return err
	}
	atts, _ := f.attList(varid)
	for i := range *atts {
		if (*atts)[i].Name == name {
			*atts = append((*atts)[:i], (*atts)[i+1:]...)
			break
		}
	}
	return nil
}

// RenameAtt renames attribute from of varid to to; in data mode the new name
// may not be longer.
func (f *File) RenameAtt(varid int, from, to string) error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.readOnly {
		return nc.EPERM
	}
	a, err := f.lookupAtt(varid, from)
	if err != nil {
		return err
	}
	if err := checkName(to); err != nil {
		return err
	}
	atts, _ := f.attList(varid)
	if findAtt(*atts, to) != nil {
		return nc.ENAMEINUSE
	}
	if !f.define && len(to) > len(from) {
		return nc.ENOTINDEFINE
	}
	if err := f.forward(func(d Definer) error { return d.RenameAtt(varid, from, to) }); err != nil {
		return err
	}
	a.Name = to
	return nil
}

// CopyAtt copies attribute name of varid in f to varid dstVarid of dst (which
// may be f), keeping its type and values (ncmpi_copy_att).
func (f *File) CopyAtt(varid int, name string, dst *File, dstVarid int) error {
	a, err := f.lookupAtt(varid, name)
	if err != nil {
		return err
	}
	if dst == nil {
		return nc.EBADID
	}
	return dst.putAtt(dstVarid, name, a.Type, append([]byte(nil), a.Data...), a.Type)
}
