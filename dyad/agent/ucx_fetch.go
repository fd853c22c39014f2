package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// fetchUCX is the consumer's side of the ucx DTL: it registers (or reuses) a window, asks
// the owner's agent to fill it, and drains each ready slot into the temporary file, which
// is verified by its content hash and renamed into place. Any failure removes the
// temporary file, so no partial file is left.
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
	dr := startSlotDrain(d, un.slots)
	// Before the window goes back (or is unmapped), nothing may still read a slot.
	defer dr.stop()
	buf := win.mem.Bytes()
	for k := int64(0); ; k++ {
		d.idle()
		m, err := wire.Read(d.c)
		if err != nil {
			return n, fmt.Errorf("ucx stream broke after %d of %d bytes: %w", n, meta.Size, err)
		}
		if err := dr.err(); err != nil {
			return n, err
		}
		if m.Op == wire.OpEnd {
			// The producer ends only after every slot was acknowledged, that is drained.
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
		dr.drain(buf[s:s+m.Len], m.Off)
		n += m.Len
	}
	if err := dr.stop(); err != nil {
		return n, err
	}
	return n, d.commit(n)
}

// slotDrain empties ready window slots on two goroutines of their own, so that the
// consumer's costs overlap instead of adding up: one writes each slot into the temporary
// file, the other copies it to the content hasher, while the caller reads the next
// announcement. A slot is acknowledged (the producer may refill it) once both are done
// with it; acknowledgements go out in slot order, as the producer expects them.
type slotDrain struct {
	d             *download
	toFile, toSum chan *readySlot
	wg            sync.WaitGroup
	fail          atomic.Pointer[error]
	stopped       bool
}

// readySlot is one announced slot on its way through the drain.
type readySlot struct {
	p      []byte
	off    int64
	hashed chan struct{} // closed once the hasher holds its own copy
}

// startSlotDrain starts draining for download d; depth bounds the slots in the drain at
// once, which the producer's window already does.
func startSlotDrain(d *download, depth int64) *slotDrain {
	dr := &slotDrain{d: d, toFile: make(chan *readySlot, depth), toSum: make(chan *readySlot, depth)}
	dr.wg.Add(2)
	go func() {
		defer dr.wg.Done()
		for s := range dr.toSum {
			d.add(s.p)
			close(s.hashed)
		}
	}()
	go func() {
		defer dr.wg.Done()
		for s := range dr.toFile {
			if dr.err() == nil {
				if err := writeSparse(d.tmp, s.p, s.off); err != nil {
					dr.setErr(err)
				}
			}
			<-s.hashed
			if dr.err() != nil {
				continue // the fetch fails: no acknowledgement, the producer stops on the broken connection
			}
			// The slot is in the file and with the hasher: the producer may fill it again.
			if err := wire.Write(d.c, &wire.Msg{Op: wire.OpAck, Off: s.off}); err != nil {
				dr.setErr(fmt.Errorf("ucx stream broke at %d of %d bytes: %w", s.off, d.meta.Size, err))
			}
		}
	}()
	return dr
}

// drain queues slot bytes p, the file's bytes at off.
func (dr *slotDrain) drain(p []byte, off int64) {
	s := &readySlot{p: p, off: off, hashed: make(chan struct{})}
	dr.toSum <- s
	dr.toFile <- s
}

func (dr *slotDrain) setErr(err error) { dr.fail.CompareAndSwap(nil, &err) }

// err returns the drain's first failure so far.
func (dr *slotDrain) err() error {
	if e := dr.fail.Load(); e != nil {
		return *e
	}
	return nil
}

// stop waits until every queued slot is drained and returns the first failure; later
// calls return it again.
func (dr *slotDrain) stop() error {
	if !dr.stopped {
		dr.stopped = true
		close(dr.toSum)
		close(dr.toFile)
	}
	dr.wg.Wait()
	return dr.err()
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
