package pnetcdf

import "github.com/couplet-hpc/couplet/nc"

// Backend is what a file's driver implements, in the manner of PnetCDF's
// dispatch table. The front end (File) validates every call in PnetCDF's check
// order and owns the header, so a backend receives only well-formed calls and
// all backends report the same NC_* code for the same bad call. Define-mode
// calls edit the front end's header alone; the backend receives the validated
// header at EndDef. Requests arrive normalised as nc.Access values; a varn
// call is several.
type Backend interface {
	// EndDef leaves define mode with h, the validated header: a copy that
	// is the backend's to keep. It comes at every EndDef, so after a Redef
	// the backend gets the redefined header whole. Dimension and variable
	// ids follow definition order, as in the header.
	EndDef(h *nc.Header) error
	// Redef re-enters define mode.
	Redef() error

	// Data mode.
	BeginIndep() error
	EndIndep() error
	Sync() error
	Put(reqs []nc.Access, collective bool) error
	Get(reqs []nc.Access, collective bool) error
	IPut(reqs []nc.Access) (id int, err error)
	IGet(reqs []nc.Access) (id int, err error)
	BPut(reqs []nc.Access) (id int, err error)
	// Wait completes the given requests; statuses[i] is the outcome of ids[i].
	Wait(ids []int, collective bool) (statuses []error, err error)
	Cancel(ids []int) (statuses []error, err error)
	AttachBuffer(size int64) error
	DetachBuffer() error
	BufferUsage() (int64, error)
	// NumRecs reports the current length of the record dimension.
	NumRecs() (int64, error)
	Close() error
}

// Definer is a Backend whose storage keeps a header of its own that must be
// edited call by call: the disk backend, where the header is the file's,
// written by libpnetcdf. The front end forwards each validated define-mode
// call to it (and the header changes data mode allows: renames that do not
// grow, attributes overwritten in place). A backend that is not a Definer
// sees the header only at EndDef, and such data-mode changes need define mode
// (nc.ENOTINDEFINE), since its readers took the header at EndDef.
type Definer interface {
	DefDim(name string, length int64) error
	DefVar(name string, t nc.Type, dimids []int) error
	PutAtt(varid int, a nc.Att) error
	DelAtt(varid int, name string) error
	RenameAtt(varid int, from, to string) error
	RenameDim(dimid int, name string) error
	RenameVar(varid int, name string) error
	DefVarFill(varid int, noFill bool, fill []byte) error
	SetFill(mode int) error
}

// Follower is a Backend whose header another program owns and may redefine
// while the file is open: a coupled file's reader, whose writer may Redef
// and EndDef again. Header returns the owner's newest header when it is newer
// than the one last returned (nil otherwise); the front end asks after the
// calls that may bring one (gets, waits, record-count inquiries).
type Follower interface {
	Header() (*nc.Header, error)
}
