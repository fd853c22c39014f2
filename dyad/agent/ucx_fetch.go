package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// fetchUCX is the consumer's side of the ucx DTL: it registers (or reuses) a window, asks
// the owner's agent to fill it, and drains each ready slot into the temporary file, which
// is verified by its content hash and renamed into place. Any failure removes the
// temporary file, so no partial file is left.
//
// A ready slot is copied out in pieces of hashPiece bytes into the hasher's buffers and
// acknowledged (the producer may refill it) once copied; a goroutine of its own writes
// each piece into the file and hands it on to the hasher. Writing straight from the
// window cost several times more: the kernel's copy into the page cache then reads a
// source of megabytes that has left the cache (and, on this VM, its pages one by one
// afresh), where a piece just copied is still in it. The copy-out, the write and the hash
// overlap, as in the rpc DTL.
func (a *Agent) fetchUCX(ctx context.Context, meta *wire.Meta, dest string) (n int64, err error) {
	un, err := a.ucxNode()
	if err != nil {
		return 0, err
	}
	wctx, cancel := context.WithTimeout(ctx, a.opts.IdleTimeout)
	win, err := un.getWindow(wctx)
	cancel()
	if err != nil {
		return 0, err
	}
	reuse := false
	defer func() { un.putWindow(win, reuse) }()
	defer un.progress()()

	req := &wire.Msg{Op: wire.OpFetchUCX, Path: meta.Path, Version: meta.Version,
		Win: &wire.Window{Worker: un.addr, Addr: win.mem.Addr(), Rkey: win.rkey, SlotSize: un.slot, Slots: un.slots}}
	d, err := a.startDownload(ctx, meta, dest, req)
	if err != nil {
		return 0, err
	}
	defer func() { d.end(err) }()
	w := startSparseWriter(d)
	defer w.close()
	buf := win.mem.Bytes()
	for k := int64(0); ; k++ {
		d.idle()
		m, err := wire.Read(d.c)
		if err != nil {
			return n, fmt.Errorf("ucx stream broke after %d of %d bytes: %w", n, meta.Size, err)
		}
		if m.Op == wire.OpEnd {
			reuse = true // the producer is done with the window
			break
		}
		if m.Op == wire.OpError {
			return n, fmt.Errorf("owner failed after %d bytes: %s", n, m.Err)
		}
		if m.Op != wire.OpReady || m.Off != n || m.Len > un.slot || n+m.Len > meta.Size {
			return n, fmt.Errorf("unexpected %v (%d bytes at %d) after %d of %d bytes", m.Op, m.Len, m.Off, n, meta.Size)
		}
		s := (k % un.slots) * un.slot
		for p := buf[s : s+m.Len]; len(p) > 0; {
			b := d.content.buffer(min(len(p), hashPiece))
			copy(b, p)
			w.write(b, n)
			p, n = p[len(b):], n+int64(len(b))
		}
		if err := w.err(); err != nil {
			return n, err
		}
		// The slot is copied out: the producer may fill it again.
		if err := wire.Write(d.c, &wire.Msg{Op: wire.OpAck, Off: m.Off}); err != nil {
			return n, fmt.Errorf("ucx stream broke after %d of %d bytes: %w", n, meta.Size, err)
		}
	}
	if err := w.close(); err != nil {
		return n, err
	}
	return n, d.commit(n)
}

// sparseWriter writes pieces of a download into its temporary file with writeSparse, in
// order, on a goroutine of its own, and hands each piece on to the content hasher.
type sparseWriter struct {
	d      *download
	in     chan piece
	done   chan struct{}
	fail   atomic.Pointer[error]
	closed bool
}

// piece is a buffer of the hasher holding the file's bytes at off.
type piece struct {
	b   []byte
	off int64
}

func startSparseWriter(d *download) *sparseWriter {
	w := &sparseWriter{d: d, in: make(chan piece, hasherDepth), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for p := range w.in {
			if w.err() == nil {
				if err := writeSparse(d.tmp, p.b, p.off); err != nil {
					w.fail.CompareAndSwap(nil, &err)
				}
			}
			d.content.Write(p.b)
		}
	}()
	return w
}

// write queues b, a buffer from the hasher holding the bytes at off; the caller must not
// touch b afterwards.
func (w *sparseWriter) write(b []byte, off int64) { w.in <- piece{b, off} }

// err returns the first write error so far.
func (w *sparseWriter) err() error {
	if e := w.fail.Load(); e != nil {
		return *e
	}
	return nil
}

// close waits until every queued piece is written and hashed-on, and returns the first
// write error; later calls return it again.
func (w *sparseWriter) close() error {
	if !w.closed {
		w.closed = true
		close(w.in)
	}
	<-w.done
	return w.err()
}

// holeBlock is the granularity at which writeSparse leaves zeros as holes.
const holeBlock = 64 << 10

var zeroBlock [holeBlock]byte

// writeSparse writes p at off, leaving whole blocks of zeros unwritten (holes, read back as
// zeros), as cp does: a sparse file stays sparse, and staging one costs no disk writes.
func writeSparse(f *os.File, p []byte, off int64) error {
	zero := func(b []byte) bool { return bytes.Equal(b, zeroBlock[:len(b)]) }
	for len(p) > 0 {
		i := 0
		for i < len(p) && zero(p[i:i+min(holeBlock, len(p)-i)]) {
			i += min(holeBlock, len(p)-i)
		}
		j := i
		for j < len(p) && !zero(p[j:j+min(holeBlock, len(p)-j)]) {
			j += min(holeBlock, len(p)-j)
		}
		if j > i {
			if _, err := f.WriteAt(p[i:j], off+int64(i)); err != nil {
				return err
			}
		}
		p, off = p[j:], off+int64(j)
	}
	return nil
}
