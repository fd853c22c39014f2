package pnetcdf

import "github.com/couplet-hpc/couplet/nc"

// maxUint is the largest record index CDF-1 and CDF-2 can address.
const maxUint = 1<<32 - 1

// prepare validates c in PnetCDF's order and normalises it into accesses:
// EBADID, EPERM, EINDEFINE/EINDEP/ENOTINDEP (blocking calls), EGLOBAL,
// ENOTVAR, ECHAR, ENULLSTART (varn), EINVALCOORDS, ENEGATIVECNT/EEDGE, ESTRIDE,
// then EINVAL for a Go buffer too short for the request.
func (f *File) prepare(c *call) ([]nc.Access, error) {
	if err := f.ok(); err != nil {
		return nil, err
	}
	if c.op.isPut() && f.readOnly {
		return nil, nc.EPERM
	}
	if c.op.blocking() {
		switch {
		case f.define:
			return nil, nc.EINDEFINE
		case c.coll && f.indep:
			return nil, nc.EINDEP
		case !c.coll && !f.indep:
			return nil, nc.ENOTINDEP
		}
	}
	if c.varid == nc.GLOBAL {
		return nil, nc.EGLOBAL
	}
	if err := f.checkVarid(c.varid); err != nil {
		return nil, err
	}
	v := &f.h.Vars[c.varid]
	if (c.bt == nc.CHAR) != (v.Type == nc.CHAR) {
		return nil, nc.ECHAR
	}
	if c.op == opBPut && f.bufSize == 0 {
		return nil, nc.ENULLABUF
	}
	if f.h.IsRecordVar(c.varid) && !f.define {
		if err := f.refreshRecs(); err != nil {
			return nil, err
		}
	}
	shape := f.h.Shape(c.varid)
	if c.fam == famVarn {
		return f.prepareVarn(c, shape)
	}
	a := nc.Access{Var: c.varid, BufType: c.bt}
	switch {
	case len(shape) == 0: // scalar: indices are ignored
		a.Start, a.Count = []int64{}, []int64{}
	case c.fam == famVar:
		a.Start, a.Count = make([]int64, len(shape)), shape
	default:
		if err := f.checkBox(c, shape, c.start, c.count); err != nil {
			return nil, err
		}
		a.Start, a.Count = c.start, c.count
		if c.fam == famVar1 {
			a.Count = ones(len(shape))
		}
		if c.fam >= famVars && c.stride != nil {
			a.Stride = c.stride
		}
		if c.fam == famVarm && c.imap != nil {
			a.Imap = c.imap
		}
	}
	need := a.Len()
	if a.Imap != nil {
		var err error
		if need, err = imapExtent(a.Count, a.Imap); err != nil {
			return nil, err
		}
	}
	if int64(len(c.buf)/c.bt.Size()) < need {
		return nil, nc.Errorf(nc.EINVAL, "buffer holds %d elements, request needs %d", len(c.buf)/c.bt.Size(), need)
	}
	a.Buf = c.buf[:need*int64(c.bt.Size())]
	return []nc.Access{a}, nil
}

// prepareVarn validates each start/count pair of a varn call and splits the
// buffer among them in order.
func (f *File) prepareVarn(c *call, shape []int64) ([]nc.Access, error) {
	n := len(c.starts)
	if c.counts != nil && len(c.counts) != n {
		return nil, nc.Errorf(nc.EINVAL, "%d starts but %d counts", n, len(c.counts))
	}
	if n == 0 {
		return nil, nil
	}
	if len(shape) == 0 && n != 1 {
		return nil, nc.EINVAL
	}
	reqs := make([]nc.Access, 0, n)
	off := int64(0)
	size := int64(c.bt.Size())
	for i, st := range c.starts {
		a := nc.Access{Var: c.varid, BufType: c.bt, Start: []int64{}, Count: []int64{}}
		if len(shape) > 0 {
			var ct []int64
			if c.counts != nil {
				ct = c.counts[i]
			}
			sub := call{op: c.op, fam: famVara}
			if ct == nil {
				sub.fam = famVar1
			}
			if st == nil {
				return nil, nc.ENULLSTART
			}
			if err := f.checkBox(&sub, shape, st, ct); err != nil {
				return nil, err
			}
			a.Start, a.Count = st, ct
			if ct == nil {
				a.Count = ones(len(shape))
			}
		}
		m := a.Len() * size
		if off+m > int64(len(c.buf)) {
			return nil, nc.Errorf(nc.EINVAL, "buffer of %d bytes too short for varn request %d", len(c.buf), i)
		}
		a.Buf = c.buf[off : off+m]
		off += m
		reqs = append(reqs, a)
	}
	return reqs, nil
}

// checkBox is PnetCDF's check_start_count_stride with relaxed coordinate
// bounds (start may equal the dimension length when count is 0). count is
// nil for var1; c.stride applies to vars and varm.
func (f *File) checkBox(c *call, shape, start, count []int64) error {
	nd := len(shape)
	if start == nil { // libpnetcdf 1.12.3: EINVALCOORDS here, ENULLSTART only for varn
		return nc.EINVALCOORDS
	}
	if len(start) != nd {
		return nc.Errorf(nc.EINVALCOORDS, "start has %d indices for %d dimensions", len(start), nd)
	}
	if c.fam == famVar1 {
		count = nil
	} else if count == nil {
		return nc.EEDGE
	} else if len(count) != nd {
		return nc.Errorf(nc.EEDGE, "count has %d entries for %d dimensions", len(count), nd)
	}
	var stride []int64
	if c.fam >= famVars && c.stride != nil {
		stride = c.stride
		if len(stride) != nd {
			return nc.Errorf(nc.ESTRIDE, "stride has %d entries for %d dimensions", len(stride), nd)
		}
	}
	if c.fam == famVarm && c.imap != nil && len(c.imap) != nd {
		return nc.Errorf(nc.EINVAL, "imap has %d entries for %d dimensions", len(c.imap), nd)
	}
	length := func(i int) int64 {
		if count == nil {
			return 1
		}
		return count[i]
	}
	if start[0] < 0 {
		return nc.EINVALCOORDS
	}
	first := 0
	rec := f.h.IsRecordVar(c.varid)
	if rec {
		if f.h.Format != nc.Format64BitData && start[0] > maxUint {
			return nc.EINVALCOORDS
		}
		if c.op.isRead() {
			if shape[0] == 0 && length(0) > 0 {
				return nc.EINVALCOORDS
			}
			if err := checkCoord(start[0], length(0), shape[0]); err != nil {
				return err
			}
		}
		first = 1
	}
	for i := first; i < nd; i++ {
		if err := checkCoord(start[i], length(i), shape[i]); err != nil {
			return err
		}
	}
	if count == nil {
		return nil
	}
	for i := 0; i < nd; i++ {
		if count[i] < 0 {
			return nc.ENEGATIVECNT
		}
		if i == 0 && rec && !c.op.isRead() {
			continue
		}
		var sd *int64
		if stride != nil {
			sd = &stride[i]
		}
		if err := checkEdge(start[i], count[i], sd, shape[i]); err != nil {
			return err
		}
	}
	for _, s := range stride {
		if s <= 0 {
			return nc.ESTRIDE
		}
	}
	return nil
}

// checkCoord is PnetCDF's relaxed check_EINVALCOORDS.
func checkCoord(start, count, shape int64) error {
	if start < 0 || start > shape || start == shape && count > 0 {
		return nc.EINVALCOORDS
	}
	return nil
}

// checkEdge is PnetCDF's check_EEDGE.
func checkEdge(start, count int64, stride *int64, shape int64) error {
	if count > shape || start+count > shape {
		return nc.EEDGE
	}
	if stride != nil && count > 0 && start+(count-1)*(*stride) >= shape {
		return nc.EEDGE
	}
	return nil
}

// imapExtent returns how many buffer elements a varm layout spans.
func imapExtent(count, imap []int64) (int64, error) {
	ext := int64(1)
	for i, c := range count {
		if c == 0 {
			return 0, nil
		}
		if imap[i] < 0 {
			return 0, nc.Errorf(nc.EINVAL, "negative imap[%d]", i)
		}
		ext += (c - 1) * imap[i]
	}
	return ext, nil
}

func ones(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}
