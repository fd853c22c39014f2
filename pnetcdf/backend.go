package pnetcdf

import "github.com/couplet-hpc/couplet/nc"

// Backend is what a file's driver implements, in the manner of PnetCDF's
// dispatch table. The front end (File) validates every call in PnetCDF's check
// order and keeps the header mirror, so a backend receives only well-formed
// calls and all backends report the same NC_* code for the same bad call.
// Requests arrive normalised as nc.Access values; a varn call is several.
type Backend interface {
	// Define mode. Ids follow definition order, as in the header.
	DefDim(name string, length int64) error
	DefVar(name string, t nc.Type, dimids []int) error
	PutAtt(varid int, a nc.Att) error
	DelAtt(varid int, name string) error
	RenameAtt(varid int, from, to string) error
	RenameDim(dimid int, name string) error
	RenameVar(varid int, name string) error
	DefVarFill(varid int, noFill bool, fill []byte) error
	SetFill(mode int) error
	EndDef() error
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
