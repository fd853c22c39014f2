package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/dyad/ofd"
	"github.com/couplet-hpc/couplet/dyad/peerauth"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// serveRemote answers fetches from a peer agent: each a header, the file in chunks, an
// end. The peer authenticates once per connection; after a clean reply the connection
// waits (evictable, as before authentication) for the peer's next request, so that the
// peer's pool can reuse it.
func (a *Agent) serveRemote(c *gated) {
	// The peer proves it holds the token before it may send anything else.
	if err := peerauth.Server(c, []byte(a.opts.Token), a.opts.PreAuthTimeout); err != nil {
		if errors.Is(err, peerauth.ErrUnauthorized) {
			a.ctr.unauthorized.Add(1)
			a.errs.Printf("refused a peer at %s: %v", c.RemoteAddr(), err)
		}
		return
	}
	a.ctr.peerAuths.Add(1)
	tuneSender(c.Conn)
	a.serveRequests(c, c.RemoteAddr().String(), a.peerKeepAlive(), func(m *wire.Msg) bool {
		return a.serveFetch(c, m)
	})
}

// serveFetch serves one request m of a peer; it says whether the reply ended cleanly, so
// that the connection can carry another request.
func (a *Agent) serveFetch(c *gated, m *wire.Msg) bool {
	c.SetReadDeadline(time.Now().Add(a.opts.IdleTimeout))
	if m.Op != wire.OpFetch && m.Op != wire.OpFetchUCX {
		a.errs.Printf("refused %v from %s: only fetch is served over TCP", m.Op, c.RemoteAddr())
		wire.Write(c, &wire.Msg{Op: wire.OpError, Err: fmt.Sprintf("%v not allowed from a peer", m.Op)})
		return false
	}
	if a.opts.Debug {
		a.info.Printf("fetch %q version %d for %s", m.Path, m.Version, c.RemoteAddr())
	}
	var n int64
	var err error
	start := time.Now()
	if m.Op == wire.OpFetchUCX {
		n, err = a.sendFileUCX(c, m)
	} else {
		n, err = a.sendFile(c, m.Path)
	}
	if errors.Is(err, errRejected) {
		return true // counted, logged and answered where it was refused
	}
	if err != nil {
		a.errs.Printf("fetch %q for %s: %v", m.Path, c.RemoteAddr(), err)
		return false
	}
	a.log.Info("served", append(transferAttrs(m.Path, n, time.Since(start)), "to", c.RemoteAddr().String(), "op", m.Op.String())...)
	return true
}

// served counts a fetch of n bytes as served. The senders call it just before their
// final End message, so a consumer that has its file also sees the count.
func (a *Agent) served(n int64, overUCX bool) {
	a.ctr.fetchesServed.Add(1)
	a.ctr.bytesServed.Add(n)
	if overUCX {
		a.ctr.ucxFetchesServed.Add(1)
	}
}

// openConfined opens upath inside the producer directory. It rejects absolute paths and
// ".." components outright, and os.Root rejects symlinks that lead outside.
func (a *Agent) openConfined(upath string) (*os.File, error) {
	if upath == "" || strings.HasPrefix(upath, "/") || strings.Contains(upath, "\x00") {
		return nil, fmt.Errorf("absolute or empty path %q", upath)
	}
	for _, part := range strings.Split(upath, "/") {
		if part == ".." {
			return nil, fmt.Errorf("path %q climbs out with \"..\"", upath)
		}
		// The agent's own state (etcd data, locks, sidecars, partial downloads) is not served.
		if strings.HasPrefix(part, ".couplet") {
			return nil, fmt.Errorf("path %q is in couplet's internal state", upath)
		}
	}
	f, err := a.root.Open(upath)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%q is not a regular file", upath)
	}
	if err := a.checkResolved(f, st); err != nil {
		f.Close()
		return nil, fmt.Errorf("%q: %w", upath, err)
	}
	return f, nil
}

// errRejected marks a fetch refused by path confinement: the refusal was
// already counted, logged and sent to the peer, and nothing was served.
var errRejected = errors.New("fetch rejected")

func (a *Agent) sendFile(c net.Conn, upath string) (int64, error) {
	f, err := a.openConfined(upath)
	if err != nil {
		a.ctr.rejected.Add(1)
		a.log.Error("rejected fetch", "path", upath, "from", c.RemoteAddr().String(), "err", err)
		wire.Write(c, &wire.Msg{Op: wire.OpError, Err: fmt.Sprintf("rejected %q: %v", upath, err)})
		return 0, errRejected
	}
	defer f.Close()
	// A shared lock keeps a local writer holding an exclusive lock out while we read.
	if err := ofd.Lock(f, false, a.opts.IdleTimeout); err != nil {
		wire.Write(c, &wire.Msg{Op: wire.OpError, Err: err.Error()})
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	// The gate's wrapper hides the connection's ReadFrom, and with it sendfile: io.Copy
	// through it would read and write the file 32 KiB at a time through user space.
	out := c
	if g, ok := c.(*gated); ok {
		out = g.Conn
	}
	// The header goes out in one write with the first chunk's frame (or the end), so that
	// the consumer wakes once for both.
	var frames bytes.Buffer
	if err := wire.Write(&frames, &wire.Msg{Op: wire.OpHeader, Meta: &wire.Meta{Path: upath, Size: size}}); err != nil {
		return 0, err
	}
	var sent int64
	for sent < size {
		n := min(int64(a.opts.ChunkSize), size-sent)
		c.SetWriteDeadline(time.Now().Add(a.opts.IdleTimeout))
		if err := wire.Write(&frames, &wire.Msg{Op: wire.OpChunk, N: n}); err != nil {
			return sent, err
		}
		if _, err := c.Write(frames.Bytes()); err != nil {
			return sent, err
		}
		frames.Reset()
		// io.CopyN from an *os.File to the TCP conn itself uses sendfile: no user-space copy.
		w, err := io.CopyN(out, f, n)
		sent += w
		if err != nil {
			return sent, fmt.Errorf("after %d of %d bytes: %w", sent, size, err)
		}
		if a.opts.ChunkDelay > 0 {
			select {
			case <-time.After(a.opts.ChunkDelay):
			case <-a.ctx.Done():
				return sent, a.ctx.Err()
			}
		}
	}
	a.served(sent, false)
	if err := wire.Write(&frames, &wire.Msg{Op: wire.OpEnd}); err != nil {
		return sent, err
	}
	_, err = c.Write(frames.Bytes())
	return sent, err
}
