package pnetcdf

import (
	"slices"

	"github.com/couplet-hpc/couplet/nc"
)

// post validates and posts a nonblocking request and returns its id.
// Nonblocking calls are independent and may be posted in either data mode.
func (f *File) post(c call) (int, error) {
	reqs, err := f.prepare(&c)
	if err != nil {
		return nc.REQ_NULL, err
	}
	if len(reqs) == 0 {
		return nc.REQ_NULL, nil
	}
	var id int
	switch c.op {
	case opIPut:
		id, err = f.b.IPut(reqs)
	case opIGet:
		id, err = f.b.IGet(reqs)
	default:
		id, err = f.b.BPut(reqs)
	}
	if err != nil {
		return nc.REQ_NULL, err
	}
	f.pending[id] = pending{varid: c.varid, bytes: f.varBytes(reqs), put: c.op.isPut()}
	return id, nil
}

// Wait completes requests independently (ncmpi_wait); see WaitAll.
func (f *File) Wait(num int, reqs []int) ([]error, error) { return f.wait(num, reqs, false) }

// WaitAll completes requests collectively (ncmpi_wait_all): the first num ids
// of reqs, or every pending request when num is nc.REQ_ALL (statuses are then
// nil). statuses[i] is the outcome of reqs[i]: nc.EINVAL_REQUEST for an id
// that is not pending, nil for nc.REQ_NULL. The returned error is the first
// failure of the call itself.
func (f *File) WaitAll(num int, reqs []int) ([]error, error) { return f.wait(num, reqs, true) }

// Cancel cancels requests (ncmpi_cancel), with WaitAll's num and reqs rules.
// Puts that are cancelled write nothing and gets read nothing.
func (f *File) Cancel(num int, reqs []int) ([]error, error) {
	if err := f.ok(); err != nil {
		return nil, err
	}
	ids, statuses, pos, err := f.selectReqs(num, reqs)
	if err != nil {
		return nil, err
	}
	bst, err := f.b.Cancel(ids)
	for i, id := range ids {
		delete(f.pending, id)
		if statuses != nil {
			statuses[pos[i]] = bst[i]
		}
	}
	return statuses, err
}

func (f *File) wait(num int, reqs []int, coll bool) ([]error, error) {
	if err := f.ok(); err != nil {
		return nil, err
	}
	switch {
	case f.define:
		return nil, nc.EINDEFINE
	case coll && f.indep:
		return nil, nc.EINDEP
	}
	ids, statuses, pos, err := f.selectReqs(num, reqs)
	if err != nil {
		return nil, err
	}
	bst, err := f.b.Wait(ids, coll)
	if err != nil {
		return statuses, err
	}
	for i, id := range ids {
		p := f.pending[id]
		delete(f.pending, id)
		if st := bst[i]; st == nil || nc.Code(st) == nc.ERANGE {
			if p.put {
				f.putBytes += p.bytes
			} else {
				f.getBytes += p.bytes
			}
		}
		if statuses != nil {
			statuses[pos[i]] = bst[i]
		}
	}
	return statuses, f.refreshRecs()
}

// selectReqs resolves num/reqs into the pending ids to hand to the backend,
// the statuses array to fill, and the position of each id in it.
func (f *File) selectReqs(num int, reqs []int) (ids []int, statuses []error, pos []int, err error) {
	if num == nc.REQ_ALL {
		for id := range f.pending {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids, nil, make([]int, len(ids)), nil
	}
	if num < 0 || num > len(reqs) {
		return nil, nil, nil, nc.EINVAL
	}
	statuses = make([]error, num)
	for i, id := range reqs[:num] {
		switch _, ok := f.pending[id]; {
		case id == nc.REQ_NULL:
		case !ok || slices.Contains(ids, id):
			statuses[i] = nc.EINVAL_REQUEST
		default:
			ids = append(ids, id)
			pos = append(pos, i)
		}
	}
	return ids, statuses, pos, nil
}

// BufferAttach attaches size bytes of internal buffer for bput requests
// (ncmpi_buffer_attach).
func (f *File) BufferAttach(size int64) error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.bufSize > 0 {
		return nc.EPREVATTACHBUF
	}
	if size <= 0 {
		return nc.EINVAL
	}
	if err := f.b.AttachBuffer(size); err != nil {
		return err
	}
	f.bufSize = size
	return nil
}

// BufferDetach frees the bput buffer; every bput must be complete (ncmpi_buffer_detach).
func (f *File) BufferDetach() error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.bufSize == 0 {
		return nc.ENULLABUF
	}
	if err := f.b.DetachBuffer(); err != nil {
		return err
	}
	f.bufSize = 0
	return nil
}

// InqBufferUsage returns the bytes of the bput buffer in use (ncmpi_inq_buffer_usage).
func (f *File) InqBufferUsage() (int64, error) {
	if err := f.ok(); err != nil {
		return 0, err
	}
	if f.bufSize == 0 {
		return 0, nc.ENULLABUF
	}
	return f.b.BufferUsage()
}

// InqNReqs returns the number of pending nonblocking requests (ncmpi_inq_nreqs).
func (f *File) InqNReqs() (int, error) {
	if err := f.ok(); err != nil {
		return 0, err
	}
	return len(f.pending), nil
}

// IPutVar posts a write of the whole variable (ncmpi_iput_var_<type>); buf
// must not change until the request completes.
func IPutVar[T nc.Elem](f *File, varid int, buf []T) (int, error) {
	return f.post(with(call{op: opIPut, fam: famVar, varid: varid}, buf))
}

// IPutVar1 posts a write of buf[0] at index (ncmpi_iput_var1_<type>).
func IPutVar1[T nc.Elem](f *File, varid int, index []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIPut, fam: famVar1, varid: varid, start: index}, buf))
}

// IPutVara posts a block write (ncmpi_iput_vara_<type>).
func IPutVara[T nc.Elem](f *File, varid int, start, count []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIPut, fam: famVara, varid: varid, start: start, count: count}, buf))
}

// IPutVars posts a strided block write (ncmpi_iput_vars_<type>).
func IPutVars[T nc.Elem](f *File, varid int, start, count, stride []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIPut, fam: famVars, varid: varid, start: start, count: count, stride: stride}, buf))
}

// IPutVarm posts a mapped strided block write (ncmpi_iput_varm_<type>).
func IPutVarm[T nc.Elem](f *File, varid int, start, count, stride, imap []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIPut, fam: famVarm, varid: varid, start: start, count: count, stride: stride, imap: imap}, buf))
}

// IPutVarn posts a write of several blocks as one request (ncmpi_iput_varn_<type>).
func IPutVarn[T nc.Elem](f *File, varid int, starts, counts [][]int64, buf []T) (int, error) {
	return f.post(with(call{op: opIPut, fam: famVarn, varid: varid, starts: starts, counts: counts}, buf))
}

// IGetVar posts a read of the whole variable (ncmpi_iget_var_<type>); buf is
// filled when the request completes.
func IGetVar[T nc.Elem](f *File, varid int, buf []T) (int, error) {
	return f.post(with(call{op: opIGet, fam: famVar, varid: varid}, buf))
}

// IGetVar1 posts a read of one element into buf[0] (ncmpi_iget_var1_<type>).
func IGetVar1[T nc.Elem](f *File, varid int, index []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIGet, fam: famVar1, varid: varid, start: index}, buf))
}

// IGetVara posts a block read (ncmpi_iget_vara_<type>).
func IGetVara[T nc.Elem](f *File, varid int, start, count []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIGet, fam: famVara, varid: varid, start: start, count: count}, buf))
}

// IGetVars posts a strided block read (ncmpi_iget_vars_<type>).
func IGetVars[T nc.Elem](f *File, varid int, start, count, stride []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIGet, fam: famVars, varid: varid, start: start, count: count, stride: stride}, buf))
}

// IGetVarm posts a mapped strided block read (ncmpi_iget_varm_<type>).
func IGetVarm[T nc.Elem](f *File, varid int, start, count, stride, imap []int64, buf []T) (int, error) {
	return f.post(with(call{op: opIGet, fam: famVarm, varid: varid, start: start, count: count, stride: stride, imap: imap}, buf))
}

// IGetVarn posts a read of several blocks as one request (ncmpi_iget_varn_<type>).
func IGetVarn[T nc.Elem](f *File, varid int, starts, counts [][]int64, buf []T) (int, error) {
	return f.post(with(call{op: opIGet, fam: famVarn, varid: varid, starts: starts, counts: counts}, buf))
}

// BPutVar posts a buffered write of the whole variable (ncmpi_bput_var_<type>):
// the data is copied into the attached buffer, so buf is free on return.
func BPutVar[T nc.Elem](f *File, varid int, buf []T) (int, error) {
	return f.post(with(call{op: opBPut, fam: famVar, varid: varid}, buf))
}

// BPutVar1 posts a buffered write of one element (ncmpi_bput_var1_<type>).
func BPutVar1[T nc.Elem](f *File, varid int, index []int64, buf []T) (int, error) {
	return f.post(with(call{op: opBPut, fam: famVar1, varid: varid, start: index}, buf))
}

// BPutVara posts a buffered block write (ncmpi_bput_vara_<type>).
func BPutVara[T nc.Elem](f *File, varid int, start, count []int64, buf []T) (int, error) {
	return f.post(with(call{op: opBPut, fam: famVara, varid: varid, start: start, count: count}, buf))
}

// BPutVars posts a buffered strided block write (ncmpi_bput_vars_<type>).
func BPutVars[T nc.Elem](f *File, varid int, start, count, stride []int64, buf []T) (int, error) {
	return f.post(with(call{op: opBPut, fam: famVars, varid: varid, start: start, count: count, stride: stride}, buf))
}

// BPutVarm posts a buffered mapped strided block write (ncmpi_bput_varm_<type>).
func BPutVarm[T nc.Elem](f *File, varid int, start, count, stride, imap []int64, buf []T) (int, error) {
	return f.post(with(call{op: opBPut, fam: famVarm, varid: varid, start: start, count: count, stride: stride, imap: imap}, buf))
}

// BPutVarn posts a buffered write of several blocks (ncmpi_bput_varn_<type>).
func BPutVarn[T nc.Elem](f *File, varid int, starts, counts [][]int64, buf []T) (int, error) {
	return f.post(with(call{op: opBPut, fam: famVarn, varid: varid, starts: starts, counts: counts}, buf))
}
