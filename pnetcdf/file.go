package pnetcdf

import (
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
)

// File is an open netCDF file: the front end that validates each call in
// PnetCDF's check order, owns the header (the backend gets it at EndDef), and
// hands normalised requests to the file's Backend.
type File struct {
	b        Backend
	def      Definer  // b, when it takes define-mode calls one by one
	follow   Follower // b, when another program owns the header (a coupled reader)
	comm     mpi.Comm
	nprocs   int
	path     string
	h        *nc.Header // the file's header: edited here, handed to b at EndDef
	closed   bool
	define   bool // in define mode
	indep    bool // in independent data mode
	readOnly bool
	fillMode int // nc.FILL or nc.NOFILL, for new variables
	pending  map[int]pending
	bufSize  int64 // bytes attached for bput, 0 when none
	putBytes int64 // bytes written by completed puts, in the variables' types
	getBytes int64 // bytes read by completed gets, in the variables' types
}

// pending is what the front end remembers of a posted nonblocking request.
type pending struct {
	varid int
	bytes int64 // in the variable's external type
	put   bool
}

// Create creates a netCDF file collectively on comm and leaves it in define
// mode. mode combines nc.CLOBBER or nc.NOCLOBBER with a format flag
// (nc.BIT64_OFFSET for CDF-2, nc.BIT64_DATA for CDF-5; none for CDF-1).
func Create(comm mpi.Comm, path string, mode int) (*File, error) {
	b, h, err := openBackend(comm, path, mode, true)
	if err != nil {
		return nil, err
	}
	f := newFile(b, comm, path, h)
	f.define = true
	return f, nil
}

// Open opens an existing netCDF file collectively on comm in collective data
// mode; mode is nc.NOWRITE or nc.WRITE.
func Open(comm mpi.Comm, path string, mode int) (*File, error) {
	b, h, err := openBackend(comm, path, mode, false)
	if err != nil {
		return nil, err
	}
	f := newFile(b, comm, path, h)
	f.readOnly = mode&nc.WRITE == 0
	return f, nil
}

func newFile(b Backend, comm mpi.Comm, path string, h *nc.Header) *File {
	return newFileOf(b, comm, comm.Size(), path, h)
}

// newFileOf is newFile with the group size given.
func newFileOf(b Backend, comm mpi.Comm, nprocs int, path string, h *nc.Header) *File {
	f := &File{b: b, comm: comm, nprocs: nprocs, path: path, h: h,
		fillMode: nc.NOFILL, pending: map[int]pending{}}
	f.def, _ = b.(Definer)
	f.follow, _ = b.(Follower)
	return f
}

// Path returns the path the file was created or opened with.
func (f *File) Path() string { return f.path }

// Header returns a copy of the file's header, with the current record count.
func (f *File) Header() (*nc.Header, error) {
	if f.closed {
		return nil, nc.EBADID
	}
	if err := f.refreshRecs(); err != nil {
		return nil, err
	}
	return f.h.Clone(), nil
}

// ok is the first check of every call: the file must be open.
func (f *File) ok() error {
	if f == nil || f.closed {
		return nc.EBADID
	}
	return nil
}

// Redef puts the file back into define mode (collective).
func (f *File) Redef() error {
	switch {
	case f.ok() != nil:
		return nc.EBADID
	case f.readOnly:
		return nc.EPERM
	case f.define:
		return nc.EINDEFINE
	case f.indep:
		return nc.EINDEP
	}
	if err := f.b.Redef(); err != nil {
		return err
	}
	f.define = true
	return nil
}

// EndDef leaves define mode and hands the header to the backend, which
// writes it to the file or ships it to the readers (collective).
func (f *File) EndDef() error {
	if err := f.ok(); err != nil {
		return err
	}
	if !f.define {
		return nc.ENOTINDEFINE
	}
	if err := f.b.EndDef(f.h.Clone()); err != nil {
		return err
	}
	f.define = false
	return nil
}

// Sync flushes the file to storage (collective in collective data mode).
func (f *File) Sync() error {
	if err := f.ok(); err != nil {
		return err
	}
	if f.define {
		return nc.EINDEFINE
	}
	return f.b.Sync()
}

// BeginIndepData switches from collective to independent data mode (collective).
func (f *File) BeginIndepData() error {
	switch {
	case f.ok() != nil:
		return nc.EBADID
	case f.define:
		return nc.EINDEFINE
	case f.indep:
		return nc.EINDEP
	}
	if err := f.b.BeginIndep(); err != nil {
		return err
	}
	f.indep = true
	return nil
}

// EndIndepData switches back to collective data mode (collective).
func (f *File) EndIndepData() error {
	switch {
	case f.ok() != nil:
		return nc.EBADID
	case !f.indep:
		return nc.ENOTINDEP
	}
	if err := f.b.EndIndep(); err != nil {
		return err
	}
	f.indep = false
	return f.refreshRecs()
}

// Close ends define mode if needed, flushes and closes the file (collective).
// The File is unusable afterwards: every call returns nc.EBADID.
func (f *File) Close() error {
	if err := f.ok(); err != nil {
		return err
	}
	f.closed = true
	f.pending = nil
	return f.b.Close()
}

// refreshRecs takes a newer header from a Follower backend and updates the
// record count from the backend.
func (f *File) refreshRecs() error {
	if f.follow != nil && !f.define {
		h, err := f.follow.Header()
		if err != nil {
			return err
		}
		if h != nil {
			h.NumRecs = max(h.NumRecs, f.h.NumRecs)
			f.h = h
		}
	}
	if f.define || f.h.UnlimDim() < 0 {
		return nil
	}
	n, err := f.b.NumRecs()
	if err != nil {
		return err
	}
	f.h.NumRecs = n
	return nil
}
