package agent

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/dyad/ofd"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/ucx"
)

// chunkPlan cuts a file of size bytes into chunks of at most chunk bytes, chunk k going
// to window slot k % slots. The first chunks are small and double (from rampChunk), and
// the last ones halve again, as the rpc DTL's splice pieces do: the consumer starts
// writing after the producer read one small chunk rather than a whole slot, and what is
// left to write and hash after the producer's last read is one small chunk. All
// arithmetic is int64: files beyond 4 GiB are ordinary.
type chunkPlan struct{ size, chunk, slots int64 }

// rampChunk is the smallest chunk the plan ramps from, and then down to.
const rampChunk = 256 << 10

// next returns the length of the chunk at off (0 at the end of the file).
func (p chunkPlan) next(off int64) int64 {
	return min(p.size-off, p.chunk, max(rampChunk, min(off, (p.size-off)/2)))
}

// sendFileUCX is the producer's side of the ucx DTL: read a chunk, put it into the
// consumer's next free slot, flush, announce it, and reuse a slot only once the consumer
// has acknowledged it. Over tcp the next chunk is read while one is put: at 256 MiB the
// staging took 0.27 s against 0.29 with one source buffer. At most two chunks of the file
// are in memory here.
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
	// Over shared memory the consumer's window is mapped here: each chunk is copied from
	// the file straight into its slot, one copy and no put. Elsewhere (tcp) it is copied
	// into one of two source buffers and put, the next chunk copied into the other
	// meanwhile.
	mapped, mapErr := key.rk.Mapped(win.Addr, int(win.SlotSize*win.Slots))
	var srcs []*ucx.Memory
	if mapErr != nil {
		defer func() {
			// After a failed put UCX may still read a source: leave it to the process
			// rather than reuse it.
			if keyOK {
				for _, s := range srcs {
					un.putSrc(s)
				}
			}
		}()
		for range 2 {
			s, err := un.getSrc()
			if err != nil {
				return fail(err)
			}
			srcs = append(srcs, s)
		}
	}
	// Chunks past mapFrom are copied out of a mapping of the file (readChunk), unmapped
	// once the prefetch below is done with it.
	fileMap := mapFile(f, mapFrom, plan.size)
	defer fileMap.unmap()
	// prefetch reads chunk k, at off, into its source buffer on a goroutine of its own.
	var next chan error // the read of the next chunk, waited for before any return
	defer func() {
		if next != nil {
			<-next
		}
	}()
	prefetch := func(k, off int64) {
		p := srcs[k%2].Bytes()[:plan.next(off)]
		next = make(chan error, 1)
		go func(next chan error) { next <- readChunk(f, fileMap, p, off) }(next)
	}
	if mapped == nil && plan.size > 0 {
		prefetch(0, 0)
	}
	// Into a mapped window, the header goes out in one write with the first ready message
	// (or the end), so that the consumer wakes once for both. Before puts, it goes out
	// at once: the consumer's worker must progress for the first put to land.
	var frames bytes.Buffer
	if err := wire.Write(&frames, &wire.Msg{Op: wire.OpHeader, Meta: &wire.Meta{Path: m.Path, Size: plan.size}, Puts: mapped == nil}); err != nil {
		return 0, err
	}
	flush := func() error {
		c.SetWriteDeadline(time.Now().Add(a.opts.IdleTimeout))
		_, err := c.Write(frames.Bytes())
		frames.Reset()
		return err
	}
	if mapped == nil {
		if err := flush(); err != nil {
			return 0, err
		}
	}
	send := func(m *wire.Msg) error {
		if err := wire.Write(&frames, m); err != nil {
			return err
		}
		return flush()
	}
	var sent int64
	var unacked []int64 // offsets of the chunks put and not yet acknowledged, oldest first
	// awaitAck reads the acknowledgement of the oldest unacknowledged chunk.
	awaitAck := func() error {
		c.SetReadDeadline(time.Now().Add(a.opts.IdleTimeout))
		r, err := wire.Read(c)
		if err != nil {
			return fmt.Errorf("consumer gone: %w", err)
		}
		if r.Op != wire.OpAck || r.Off != unacked[0] {
			return fmt.Errorf("consumer sent %v at %d, want an ack at %d", r.Op, r.Off, unacked[0])
		}
		unacked = unacked[1:]
		return nil
	}
	for k := int64(0); sent < plan.size; k++ {
		if int64(len(unacked)) >= plan.slots {
			if err := awaitAck(); err != nil {
				return sent, err
			}
		}
		off := sent
		n, slot := plan.next(off), k%plan.slots
		if mapped != nil {
			if err := readChunk(f, fileMap, mapped[slot*win.SlotSize:][:n], off); err != nil {
				return fail(fmt.Errorf("read at %d of %d bytes: %w", off, plan.size, err))
			}
		} else {
			err := <-next
			next = nil
			if err != nil {
				return fail(fmt.Errorf("read at %d of %d bytes: %w", off, plan.size, err))
			}
			if off+n < plan.size {
				prefetch(k+1, off+n)
			}
			p := srcs[k%2].Bytes()[:n]
			if err := putFlush(un.w, ep, p, win.Addr+uint64(slot*win.SlotSize), key.rk, a.opts.IdleTimeout); err != nil {
				un.dropEndpoint(win.Worker, ep)
				keyOK = false
				return fail(fmt.Errorf("after %d of %d bytes: %w", sent, plan.size, err))
			}
		}
		if err := send(&wire.Msg{Op: wire.OpReady, Off: off, Len: n}); err != nil {
			return sent, err
		}
		unacked = append(unacked, off)
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
	for len(unacked) > 0 {
		if err := awaitAck(); err != nil {
			return sent, err
		}
	}
	a.served(sent, true)
	return sent, send(&wire.Msg{Op: wire.OpEnd})
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

// readChunk fills p with the file's bytes at off: copied from m, a mapping of f, when it
// covers them, else read.
func readChunk(f *os.File, m fileMap, p []byte, off int64) error {
	if !m.covers(off, int64(len(p))) {
		_, err := f.ReadAt(p, off)
		return err
	}
	if err := faultGuard(func() { copy(p, m.b[off-m.from:]) }); err != nil {
		return fmt.Errorf("read %d bytes at %d: %w", len(p), off, err)
	}
	return nil
}

// mapFrom is where the producer's mapping of a file starts: the bytes before it are read
// (pread), those after it copied from the mapping. A fresh mapping costs a page fault per
// page (or run of pages) the copy first touches, and its unmapping a TLB flush, which on
// the machine of docs/PERFORMANCE.md (a VM) a small file does not earn back, while the
// copy out of it runs in user space with vector instructions and beats pread's over
// hundreds of MiB. Measured with BenchmarkStagingUCX (ucx-sm, interleaved runs): 1 MiB
// staged in 1.11-1.20 ms read against 1.70-1.98 mapped; 16 MiB in 5.6-6.2 ms with the
// first 32 MiB read, 1.05-1.14 times the rpc DTL's throughput in the same runs, against
// 6.0-6.9 ms and 0.93-1.05 mapped (four pairs); 256 MiB in 95-97 ms read against 86-90
// mapped (three pairs), and in 58-66 ms with the first 32 MiB read against 61-66 mapped
// (two pairs).
const mapFrom = 32 << 20
