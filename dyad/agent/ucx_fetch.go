package agent

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// fetchUCX is the consumer's side of the ucx DTL: it registers (or reuses) a window, asks
// the owner's agent to fill it, and writes each ready slot to a temporary file, which is
// verified by size and CRC-32C and renamed into place. Any failure removes the temporary
// file, so no partial file is left.
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

	d := net.Dialer{Timeout: 10 * time.Second}
	c, err := d.DialContext(ctx, "tcp", meta.Owner)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	idle := func() { c.SetDeadline(time.Now().Add(a.opts.IdleTimeout)) }
	idle()
	req := &wire.Msg{Op: wire.OpFetchUCX, Token: a.opts.Token, Path: meta.Path, Version: meta.Version,
		Win: &wire.Window{Worker: un.addr, Addr: win.mem.Addr(), Rkey: win.rkey, SlotSize: un.slot, Slots: un.slots}}
	if err := wire.Write(c, req); err != nil {
		return 0, err
	}
	h, err := wire.Read(c)
	if err != nil {
		return 0, fmt.Errorf("no reply: %w", err)
	}
	if h.Op == wire.OpError {
		return 0, fmt.Errorf("owner refused: %s", h.Err)
	}
	if h.Op != wire.OpHeader || h.Meta == nil {
		return 0, fmt.Errorf("owner sent %v, want a header", h.Op)
	}
	if h.Meta.Size != meta.Size {
		return 0, fmt.Errorf("owner has %d bytes, metadata says %d (re-produced meanwhile?)", h.Meta.Size, meta.Size)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".couplet-tmp-"+filepath.Base(dest)+"-*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sum := crc32.New(dyad.Castagnoli)
	buf := win.mem.Bytes()
	for k := int64(0); ; k++ {
		idle()
		m, err := wire.Read(c)
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
		p := buf[s : s+m.Len]
		sum.Write(p)
		if err := writeSparse(tmp, p, m.Off); err != nil {
			return n, err
		}
		n += m.Len
		// The slot is in the file: the producer may fill it again.
		if err := wire.Write(c, &wire.Msg{Op: wire.OpAck, Off: m.Off}); err != nil {
			return n, fmt.Errorf("ucx stream broke after %d of %d bytes: %w", n, meta.Size, err)
		}
	}
	if n != meta.Size {
		return n, fmt.Errorf("got %d bytes, want %d", n, meta.Size)
	}
	if s := sum.Sum32(); s != meta.Checksum {
		return n, fmt.Errorf("checksum %08x, published %08x", s, meta.Checksum)
	}
	// Zero runs were skipped as holes; the size covers a trailing one.
	if err := tmp.Truncate(n); err != nil {
		return n, err
	}
	if err := tmp.Close(); err != nil {
		return n, err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return n, err
	}
	return n, nil
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
