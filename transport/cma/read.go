package cma

import (
	"errors"
	"fmt"

	"github.com/couplet-hpc/couplet/transport"
	"golang.org/x/sys/unix"
)

// ErrRefused wraps the kernel's refusal to let this process read another's
// memory: the caller moves the block another way.
var ErrRefused = errors.New("cma: the kernel refused cross-memory access")

// maxIov is the most iovecs one process_vm_readv call takes on each side
// (IOV_MAX).
const maxIov = 1024

// Read copies the block that d describes from the owner's memory into dst's
// sub-block. The two blocks must hold the same number of bytes; their row
// layouts may differ. A refusal by the kernel is ErrRefused.
func Read(d Desc, dst transport.Block) error { return ReadRange(d, dst, 0, dst.Bytes()) }

// ReadRange copies bytes [off, off+n) of the block that d describes, in C
// order, into the same bytes of dst's sub-block, as Read does for the whole
// block. Disjoint ranges may be read at once from several goroutines.
func ReadRange(d Desc, dst transport.Block, off, n int64) error {
	if err := check(d, dst, off, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if d.Region != 0 {
		if mem, done, err := attach(d); err == nil {
			defer done()
			// Offsets in the owner's memory file, whose byte d.Off is the
			// owner's d.Addr: copy straight out of this process's mapping.
			// Large ranges are far beyond the caches: stream them past.
			cp, fence := transport.RowCopier(n)
			defer fence()
			mem = mem[d.Off:]
			o := newOverlaps(dst, d.block(), off, n)
			for l, r, k := o.next(); k > 0; l, r, k = o.next() {
				cp(dst.Buf[l:l+k], mem[r:r+k])
			}
			return nil
		}
	}
	return readVM(d, dst, off, n)
}

// readVM copies bytes [off, off+n) of the block that d describes, n > 0,
// with process_vm_readv, in calls of at most maxIov pieces a side.
func readVM(d Desc, dst transport.Block, off, n int64) error {
	b := batcher{pid: d.Pid, buf: dst.Buf}
	o := newOverlaps(dst, d.block(), off, n)
	for l, r, k := o.next(); k > 0; l, r, k = o.next() {
		if err := b.add(l, int64(d.Addr)+r, k); err != nil { // r as an address in the owner
			return err
		}
	}
	return b.flush()
}

// check validates a read of bytes [off, off+n) of the block d describes
// into dst.
func check(d Desc, dst transport.Block, off, n int64) error {
	if err := dst.Validate(); err != nil {
		return err
	}
	if d.Bytes() != dst.Bytes() {
		return fmt.Errorf("cma: the owner's block has %d bytes, the destination %d (the blocks differ in size)", d.Bytes(), dst.Bytes())
	}
	if off < 0 || n < 0 || off > dst.Bytes()-n {
		return fmt.Errorf("cma: range [%d, +%d) outside the %d-byte block", off, n, dst.Bytes())
	}
	return nil
}

// overlaps walks bytes [off, off+n) of the packed streams of two blocks of
// the same size in step, one overlap of a local and a remote run at a
// time. It allocates nothing per run: a reader's block of many short rows
// (tens of thousands per read in couplet bench's case 1) made run lists
// cost more than their copies, mostly in page faults on the freshly grown
// lists.
type overlaps struct {
	lc, rc *transport.RunCursor
	left   int64
}

// newOverlaps starts the walk; the blocks must hold more than off bytes.
func newOverlaps(local, remote transport.Block, off, n int64) *overlaps {
	return &overlaps{lc: transport.NewRunCursor(local, off), rc: transport.NewRunCursor(remote, off), left: n}
}

// next returns the next overlap, by its offsets in the local and the
// remote buffer, and its length: 0 once the walk is done.
func (o *overlaps) next() (l, r, n int64) {
	if o.left == 0 {
		return 0, 0, 0
	}
	l, ln := o.lc.Run()
	r, rn := o.rc.Run()
	n = min(ln, rn, o.left)
	o.lc.Skip(n)
	o.rc.Skip(n)
	o.left -= n
	return l, r, n
}

// at is the local offset of the walk's next byte.
func (o *overlaps) at() int64 { l, _ := o.lc.Run(); return l }

// run is a contiguous range of memory.
type run struct{ addr, n int64 }

func (r run) end() int64 { return r.addr + r.n }

// batcher gathers iovec pairs and reads them in calls of at most maxIov
// iovecs per side. Local runs are offsets in buf, remote runs addresses in
// the owner.
type batcher struct {
	pid    int
	buf    []byte
	local  []run
	remote []run
}

func (b *batcher) add(l, r, n int64) error {
	lext := len(b.local) > 0 && b.local[len(b.local)-1].end() == l
	rext := len(b.remote) > 0 && b.remote[len(b.remote)-1].end() == r
	if (!lext && len(b.local) == maxIov) || (!rext && len(b.remote) == maxIov) {
		if err := b.flush(); err != nil {
			return err
		}
		lext, rext = false, false
	}
	if lext {
		b.local[len(b.local)-1].n += n
	} else {
		b.local = append(b.local, run{l, n})
	}
	if rext {
		b.remote[len(b.remote)-1].n += n
	} else {
		b.remote = append(b.remote, run{r, n})
	}
	return nil
}

// flush reads the gathered pieces, retrying after a short read.
func (b *batcher) flush() error {
	if len(b.local) == 0 {
		return nil
	}
	local, remote := b.local, b.remote
	for len(local) > 0 {
		liov := make([]unix.Iovec, len(local))
		for i, r := range local {
			liov[i].Base = &b.buf[r.addr]
			liov[i].SetLen(int(r.n))
		}
		riov := make([]unix.RemoteIovec, len(remote))
		for i, r := range remote {
			riov[i] = unix.RemoteIovec{Base: uintptr(r.addr), Len: int(r.n)}
		}
		n, err := unix.ProcessVMReadv(b.pid, liov, riov, 0)
		if err != nil {
			if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("%w: process_vm_readv from pid %d: %v", ErrRefused, b.pid, err)
			}
			return fmt.Errorf("cma: process_vm_readv from pid %d: %w", b.pid, err)
		}
		if n <= 0 {
			return fmt.Errorf("cma: process_vm_readv from pid %d read nothing", b.pid)
		}
		local, remote = skip(local, int64(n)), skip(remote, int64(n))
	}
	b.local, b.remote = b.local[:0], b.remote[:0]
	return nil
}

// skip drops the first n bytes of rs.
func skip(rs []run, n int64) []run {
	for len(rs) > 0 && n >= rs[0].n {
		n -= rs[0].n
		rs = rs[1:]
	}
	if n > 0 {
		rs = append([]run{{rs[0].addr + n, rs[0].n - n}}, rs[1:]...)
	}
	return rs
}
