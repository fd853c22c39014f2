package agent

import (
	"context"
	"fmt"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// fetchUCX is the consumer's side of the ucx DTL: it registers (or reuses) a window, asks
// the owner's agent to fill it, and drains each ready slot into the temporary file, which
// is verified by its content hash and renamed into place. Any failure removes the
// temporary file, so no partial file is left.
//
// A ready slot is written into the file straight from the window and hashed there (a
// slotDrain), then acknowledged, so that the producer may fill it again: the producer's
// read into one slot overlaps the write and the hash of the others. Copying each slot
// out into buffers of its own first, as this DTL once did, cost an extra copy and made
// the staging 10-20% slower at 256 MiB and 1 GiB on the machine of docs/PERFORMANCE.md.
func (a *Agent) fetchUCX(ctx context.Context, meta *wire.Meta, to target) (n int64, err error) {
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

	req := &wire.Msg{Op: wire.OpFetchUCX, Path: meta.Path, Version: meta.Version,
		Win: &wire.Window{Worker: un.addr, Addr: win.mem.Addr(), Rkey: win.rkey, SlotSize: un.slot, Slots: un.slots}}
	d, err := a.startDownload(ctx, meta, to, req)
	if err != nil {
		return 0, err
	}
	defer func() { d.end(err) }()
	if d.header.Puts {
		// The owner says so before its first put, which lands only as this worker
		// progresses. Over shared memory it writes into its own mapping of the window
		// instead: a progress goroutine would only take a core from the transfer.
		defer un.progress()()
	}
	// Registered after the window's release and the download's end, so it runs before
	// them: neither goroutine of the drain touches the window or the connection after.
	s := startSlotDrain(d.tmp, d.content, int(un.slots), func(off int64) error {
		return wire.Write(d.c, &wire.Msg{Op: wire.OpAck, Off: off})
	})
	defer s.close()
	buf := win.mem.Bytes()
	for k := int64(0); ; k++ {
		d.idle()
		m, err := wire.Read(d.c)
		if err != nil {
			return n, fmt.Errorf("ucx stream broke after %d of %d bytes: %w", n, meta.Size, err)
		}
		if m.Op == wire.OpEnd {
			// The producer sends it once every slot is acknowledged: it is done with the
			// window, and so is the drain.
			reuse = true
			break
		}
		if m.Op == wire.OpError {
			return n, fmt.Errorf("owner failed after %d bytes: %s", n, m.Err)
		}
		if m.Op != wire.OpReady || m.Off != n || m.Len > un.slot || n+m.Len > meta.Size {
			return n, fmt.Errorf("unexpected %v (%d bytes at %d) after %d of %d bytes", m.Op, m.Len, m.Off, n, meta.Size)
		}
		if err := s.err(); err != nil {
			return n, err
		}
		at := (k % un.slots) * un.slot
		s.slot(buf[at:at+m.Len], n)
		n += m.Len
	}
	if err := s.close(); err != nil {
		return n, err
	}
	d.holes = s.holes
	return n, d.commit(n)
}
