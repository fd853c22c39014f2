package pnetcdf

import "github.com/couplet-hpc/couplet/nc"

// family is the shape of a data call's index arguments.
type family int

const (
	famVar  family = iota // whole variable
	famVar1               // one element
	famVara               // start + count
	famVars               // start + count + stride
	famVarm               // start + count + stride + imap
	famVarn               // several start + count pairs
)

// op is the kind of data call.
type op int

const (
	opPut op = iota
	opGet
	opIPut
	opIGet
	opBPut
)

func (o op) isPut() bool    { return o == opPut || o == opIPut || o == opBPut }
func (o op) isRead() bool   { return o == opGet || o == opIGet }
func (o op) blocking() bool { return o == opPut || o == opGet }

// call is one data call as the user made it, before validation.
type call struct {
	op                         op
	coll                       bool
	fam                        family
	varid                      int
	start, count, stride, imap []int64
	starts, counts             [][]int64 // varn
	buf                        []byte
	bt                         nc.Type // element type of buf
}

// with attaches a typed user buffer to c.
func with[T nc.Elem](c call, buf []T) call {
	c.buf, c.bt = nc.Bytes(buf), nc.TypeOf[T]()
	return c
}

// fatal reports errors after which a collective call does not take part in
// the collective I/O (PnetCDF returns them at once on every rank).
func fatal(err error) bool {
	switch nc.Code(err) {
	case nc.EBADID, nc.EPERM, nc.EINDEFINE, nc.EINDEP, nc.ENOTINDEP:
		return true
	}
	return false
}
