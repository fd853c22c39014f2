package pnetcdf

import (
	"runtime"
	"unsafe"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf/internal/cpnc"
)

// disk is the Backend that writes real netCDF files through libpnetcdf
// (every call serialised inside cpnc). A front-end request id maps to the
// libpnetcdf requests it was posted as (several for varn); the user memory
// of iput/iget stays pinned until the request is waited for or cancelled.
type disk struct {
	ncid   int
	unlim  int // record dimension id, -1 if none
	nextID int
	reqs   map[int]*diskReq
}

type diskReq struct {
	lib []int
	pin runtime.Pinner
}

var (
	_ Backend = (*disk)(nil)
	_ Definer = (*disk)(nil)
)

func createDisk(comm mpi.Comm, path string, mode int) (*disk, error) {
	id, err := cpnc.Create(comm.Ptr(), path, mode)
	if err != nil {
		return nil, err
	}
	return &disk{ncid: id, unlim: -1, reqs: map[int]*diskReq{}}, nil
}

func openDisk(comm mpi.Comm, path string, mode int) (*disk, *nc.Header, error) {
	id, err := cpnc.Open(comm.Ptr(), path, mode)
	if err != nil {
		return nil, nil, err
	}
	d := &disk{ncid: id, unlim: -1, reqs: map[int]*diskReq{}}
	h, err := d.readHeader()
	if err != nil {
		cpnc.Close(id)
		return nil, nil, err
	}
	d.unlim = h.UnlimDim()
	return d, h, nil
}

// readHeader builds the header of an opened file from libpnetcdf's inquiries.
func (d *disk) readHeader() (*nc.Header, error) {
	ndims, nvars, _, unlim, err := cpnc.Inq(d.ncid)
	if err != nil {
		return nil, err
	}
	format, err := cpnc.InqFormat(d.ncid)
	if err != nil {
		return nil, err
	}
	h := &nc.Header{Format: nc.Format(format)}
	for i := 0; i < ndims; i++ {
		name, n, err := cpnc.InqDim(d.ncid, i)
		if err != nil {
			return nil, err
		}
		if i == unlim {
			h.NumRecs, n = n, nc.UNLIMITED
		}
		h.Dims = append(h.Dims, nc.Dim{Name: name, Len: n})
	}
	if h.Atts, err = d.readAtts(nc.GLOBAL); err != nil {
		return nil, err
	}
	for v := 0; v < nvars; v++ {
		name, t, dims, _, err := cpnc.InqVar(d.ncid, v)
		if err != nil {
			return nil, err
		}
		atts, err := d.readAtts(v)
		if err != nil {
			return nil, err
		}
		noFill, _, err := cpnc.InqVarFill(d.ncid, v, t.Size())
		if err != nil {
			return nil, err
		}
		h.Vars = append(h.Vars, nc.Var{Name: name, Type: t, Dims: dims, Atts: atts, NoFill: noFill})
	}
	return h, h.Validate()
}

func (d *disk) readAtts(varid int) ([]nc.Att, error) {
	var n int
	var err error
	if varid == nc.GLOBAL {
		_, _, n, _, err = cpnc.Inq(d.ncid)
	} else {
		_, _, _, n, err = cpnc.InqVar(d.ncid, varid)
	}
	if err != nil {
		return nil, err
	}
	atts := make([]nc.Att, 0, n)
	for i := 0; i < n; i++ {
		name, err := cpnc.InqAttName(d.ncid, varid, i)
		if err != nil {
			return nil, err
		}
		t, data, err := cpnc.GetAtt(d.ncid, varid, name)
		if err != nil {
			return nil, err
		}
		atts = append(atts, nc.Att{Name: name, Type: t, Data: data})
	}
	return atts, nil
}

func (d *disk) DefDim(name string, length int64) error {
	id, err := cpnc.DefDim(d.ncid, name, length)
	if err == nil && length == nc.UNLIMITED {
		d.unlim = id
	}
	return err
}

func (d *disk) DefVar(name string, t nc.Type, dimids []int) error {
	_, err := cpnc.DefVar(d.ncid, name, t, dimids)
	return err
}

func (d *disk) PutAtt(varid int, a nc.Att) error {
	return cpnc.PutAtt(d.ncid, varid, a.Name, a.Type, a.Data)
}
func (d *disk) DelAtt(varid int, name string) error { return cpnc.DelAtt(d.ncid, varid, name) }
func (d *disk) RenameAtt(varid int, from, to string) error {
	return cpnc.RenameAtt(d.ncid, varid, from, to)
}
func (d *disk) RenameDim(dimid int, name string) error { return cpnc.RenameDim(d.ncid, dimid, name) }
func (d *disk) RenameVar(varid int, name string) error { return cpnc.RenameVar(d.ncid, varid, name) }
func (d *disk) DefVarFill(varid int, noFill bool, fill []byte) error {
	return cpnc.DefVarFill(d.ncid, varid, noFill, fill)
}
func (d *disk) SetFill(mode int) error { _, err := cpnc.SetFill(d.ncid, mode); return err }

// EndDef ignores h: libpnetcdf took the define-mode calls one by one.
func (d *disk) EndDef(h *nc.Header) error { return cpnc.Enddef(d.ncid) }
func (d *disk) Redef() error              { return cpnc.Redef(d.ncid) }
func (d *disk) BeginIndep() error         { return cpnc.BeginIndep(d.ncid) }
func (d *disk) EndIndep() error           { return cpnc.EndIndep(d.ncid) }
func (d *disk) Sync() error               { return cpnc.Sync(d.ncid) }

// zero is what a zero-length request points at: libpnetcdf wants a non-NULL buffer.
var zero [8]byte

// post posts each access as one libpnetcdf request under a new front-end id.
// On failure the requests already posted are cancelled.
func (d *disk) post(k cpnc.Kind, reqs []nc.Access) (int, error) {
	r := &diskReq{}
	for i := range reqs {
		a := &reqs[i]
		buf := unsafe.Pointer(&zero[0])
		if len(a.Buf) > 0 {
			buf = unsafe.Pointer(&a.Buf[0])
			if k != cpnc.KindBPut { // bput copies the data at post time
				r.pin.Pin(buf)
			}
		}
		id, err := cpnc.Post(d.ncid, k, cpnc.Req{Varid: a.Var, Start: a.Start, Count: a.Count,
			Stride: a.Stride, Imap: a.Imap, Buf: buf, N: a.Len(), BufType: a.BufType})
		if err != nil {
			if len(r.lib) > 0 {
				cpnc.Cancel(d.ncid, r.lib, false)
			}
			r.pin.Unpin()
			return nc.REQ_NULL, err
		}
		r.lib = append(r.lib, id)
	}
	d.nextID++
	d.reqs[d.nextID] = r
	return d.nextID, nil
}

// complete waits for (or cancels) front-end requests ids: each status is the
// first failure among its libpnetcdf requests.
func (d *disk) complete(ids []int, fn func(lib []int) ([]error, error)) ([]error, error) {
	var lib []int
	owner := []int{}
	for i, id := range ids {
		r := d.reqs[id]
		if r == nil {
			continue
		}
		for _, l := range r.lib {
			lib = append(lib, l)
			owner = append(owner, i)
		}
	}
	lst, err := fn(lib)
	statuses := make([]error, len(ids))
	for i, id := range ids {
		if d.reqs[id] == nil {
			statuses[i] = nc.EINVAL_REQUEST
		}
	}
	for j, st := range lst {
		if st != nil && statuses[owner[j]] == nil {
			statuses[owner[j]] = st
		}
	}
	for _, id := range ids {
		if r := d.reqs[id]; r != nil {
			r.pin.Unpin()
			delete(d.reqs, id)
		}
	}
	return statuses, err
}

// io runs blocking accesses as nonblocking ones plus one wait, so that every
// rank makes the same collective call whatever its number of accesses.
func (d *disk) io(k cpnc.Kind, reqs []nc.Access, coll bool) error {
	var ids []int
	if len(reqs) > 0 {
		id, err := d.post(k, reqs)
		if err != nil {
			if coll { // still take part in the collective I/O
				cpnc.Wait(d.ncid, nil, false, true)
			}
			return err
		}
		ids = []int{id}
	}
	st, err := d.Wait(ids, coll)
	if err != nil {
		return err
	}
	for _, s := range st {
		if s != nil {
			return s
		}
	}
	return nil
}

func (d *disk) Put(reqs []nc.Access, coll bool) error { return d.io(cpnc.KindIPut, reqs, coll) }
func (d *disk) Get(reqs []nc.Access, coll bool) error { return d.io(cpnc.KindIGet, reqs, coll) }
func (d *disk) IPut(reqs []nc.Access) (int, error)    { return d.post(cpnc.KindIPut, reqs) }
func (d *disk) IGet(reqs []nc.Access) (int, error)    { return d.post(cpnc.KindIGet, reqs) }
func (d *disk) BPut(reqs []nc.Access) (int, error)    { return d.post(cpnc.KindBPut, reqs) }

func (d *disk) Wait(ids []int, coll bool) ([]error, error) {
	return d.complete(ids, func(lib []int) ([]error, error) { return cpnc.Wait(d.ncid, lib, false, coll) })
}

func (d *disk) Cancel(ids []int) ([]error, error) {
	return d.complete(ids, func(lib []int) ([]error, error) { return cpnc.Cancel(d.ncid, lib, false) })
}

func (d *disk) AttachBuffer(size int64) error { return cpnc.BufferAttach(d.ncid, size) }
func (d *disk) DetachBuffer() error           { return cpnc.BufferDetach(d.ncid) }
func (d *disk) BufferUsage() (int64, error)   { return cpnc.BufferUsage(d.ncid) }

func (d *disk) NumRecs() (int64, error) {
	if d.unlim < 0 {
		return 0, nil
	}
	_, n, err := cpnc.InqDim(d.ncid, d.unlim)
	return n, err
}

func (d *disk) Close() error {
	err := cpnc.Close(d.ncid)
	for id, r := range d.reqs { // libpnetcdf is done with every buffer now
		r.pin.Unpin()
		delete(d.reqs, id)
	}
	return err
}
