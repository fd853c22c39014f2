package agent

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/couplet-hpc/couplet/dyad/ofd"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/ucx"
)

// chunkPlan cuts a file of size bytes into chunks of at most chunk bytes, chunk k going
// to window slot k % slots. All arithmetic is int64: files beyond 4 GiB are ordinary.
type chunkPlan struct{ size, chunk, slots int64 }

// count is the number of chunks.
func (p chunkPlan) count() int64 { return (p.size + p.chunk - 1) / p.chunk }

// at returns chunk k's file offset, length and window slot.
func (p chunkPlan) at(k int64) (off, n, slot int64) {
	off = k * p.chunk
	return off, min(p.chunk, p.size-off), k % p.slots
}

// sendFileUCX is the producer's side of the ucx DTL: read a chunk, put it into the
// consumer's next free slot, flush, announce it, and reuse a slot only once the consumer
// has acknowledged it. Only one chunk of the file is ever in memory.
func (a *Agent) sendFileUCX(c net.Conn, m *wire.Msg) (int64, error) {
	fail := func(err error) (int64, error) {
		wire.Write(c, &wire.Msg{Op: wire.OpError, Err: err.Error()})
		return 0, err
	}
	f, err := a.openConfined(m.Path)
	if err != nil {
		a.ctr.rejected.Add(1)
		a.log.Error("rejected fetch", "path", m.Path, "from", c.RemoteAddr().String(), "err", err)
		wire.Write(c, &wire.Msg{Op: wire.OpError, Err: fmt.Sprintf("rejected %q: %v", m.Path, err)})
		return 0, errRejected
	}
	defer f.Close()
	// A shared lock keeps a local writer holding an exclusive lock out while we read.
	if err := ofd.Lock(f, false, a.opts.IdleTimeout); err != nil {
		return fail(err)
	}
	st, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	un, err := a.ucxNode()
	if err != nil {
		return fail(err)
	}
	win := m.Win
	ep, err := un.endpoint(win.Worker)
	if err != nil {
		return fail(fmt.Errorf("ucx connect to the consumer: %w", err))
	}
	key, err := un.remoteKey(ep, win.Rkey)
	if err != nil {
		un.dropEndpoint(win.Worker, ep)
		return fail(err)
	}
	keyOK := true
	defer func() { un.releaseKey(ep, win.Rkey, key, keyOK) }()
	chunk := min(win.SlotSize, un.slot)
	if a.chunkCap > 0 {
		chunk = min(chunk, a.chunkCap)
	}
	plan := chunkPlan{size: st.Size(), chunk: chunk, slots: win.Slots}
	// Over shared memory the consumer's window is mapped here: each chunk is read from
	// the file straight into its slot, one copy and no put. Elsewhere (tcp) it is read
	// into a source buffer and put.
	mapped, mapErr := key.rk.Mapped(win.Addr, int(win.SlotSize*win.Slots))
	var src *ucx.Memory
	if mapErr != nil {
		if src, err = un.getSrc(); err != nil {
			return fail(err)
		}
		srcOK := true
		defer func() {
			// After a failed put UCX may still read src: leave it to the process rather than reuse it.
			if srcOK {
				un.putSrc(src)
			}
		}()
		defer func() { srcOK = keyOK }()
	}
	if err := wire.Write(c, &wire.Msg{Op: wire.OpHeader, Meta: &wire.Meta{Path: m.Path, Size: plan.size}}); err != nil {
		return 0, err
	}
	var sent, acked int64
	// awaitAck reads the acknowledgement of the oldest unacknowledged chunk.
	awaitAck := func() error {
		c.SetReadDeadline(time.Now().Add(a.opts.IdleTimeout))
		r, err := wire.Read(c)
		if err != nil {
			return fmt.Errorf("consumer gone: %w", err)
		}
		if off, _, _ := plan.at(acked); r.Op != wire.OpAck || r.Off != off {
			return fmt.Errorf("consumer sent %v at %d, want an ack at %d", r.Op, r.Off, off)
		}
		acked++
		return nil
	}
	for k := int64(0); k < plan.count(); k++ {
		if k-acked >= plan.slots {
			if err := awaitAck(); err != nil {
				return sent, err
			}
		}
		off, n, slot := plan.at(k)
		if mapped != nil {
			if _, err := io.ReadFull(f, mapped[slot*win.SlotSize:][:n]); err != nil {
				return fail(fmt.Errorf("read at %d of %d bytes: %w", off, plan.size, err))
			}
		} else {
			p := src.Bytes()[:n]
			if _, err := io.ReadFull(f, p); err != nil {
				return fail(fmt.Errorf("read at %d of %d bytes: %w", off, plan.size, err))
			}
			if err := putFlush(un.w, ep, p, win.Addr+uint64(slot*win.SlotSize), key.rk, a.opts.IdleTimeout); err != nil {
				un.dropEndpoint(win.Worker, ep)
				keyOK = false
				return fail(fmt.Errorf("after %d of %d bytes: %w", sent, plan.size, err))
			}
		}
		c.SetWriteDeadline(time.Now().Add(a.opts.IdleTimeout))
		if err := wire.Write(c, &wire.Msg{Op: wire.OpReady, Off: off, Len: n}); err != nil {
			return sent, err
		}
		sent += n
		if a.opts.ChunkDelay > 0 {
			select {
			case <-time.After(a.opts.ChunkDelay):
			case <-a.ctx.Done():
				return sent, a.ctx.Err()
			}
		}
	}
	// Wait for the last acks before the end, so the consumer is done with the window.
	for acked < plan.count() {
		if err := awaitAck(); err != nil {
			return sent, err
		}
	}
	a.served(sent, true)
	return sent, wire.Write(c, &wire.Msg{Op: wire.OpEnd})
}

// putFlush puts p at the remote address and flushes the endpoint, so that p is in the
// consumer's memory when it returns.
func putFlush(w *ucx.Worker, ep *ucx.Endpoint, p []byte, remote uint64, rk *ucx.RemoteKey, d time.Duration) error {
	put, err := ep.Put(p, remote, rk)
	if err != nil {
		return err
	}
	fl, err := ep.Flush()
	if err != nil {
		ucx.WaitAll(w, []*ucx.Request{put}, d)
		return err
	}
	return ucx.WaitAll(w, []*ucx.Request{put, fl}, d)
}
