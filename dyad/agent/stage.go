package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/ofd"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// flights merges concurrent stagings of the same destination and version into one fetch.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	done chan struct{}
	err  error
}

func (f *flights) do(key string, fn func() error) error {
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*flight{}
	}
	if fl, ok := f.m[key]; ok {
		f.mu.Unlock()
		<-fl.done
		return fl.err
	}
	fl := &flight{done: make(chan struct{})}
	f.m[key] = fl
	f.mu.Unlock()
	fl.err = fn()
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
	close(fl.done)
	return fl.err
}

// stage fetches meta's file from its owner into dest over dtl: into a temporary file beside it,
// verified by size and the signed content hash, marked with its record (dyad.StagedAttr),
// then renamed into place; where the file system takes no such mark, the record goes to
// the sidecar side after the rename (download.commit). A failure at any point removes the
// temporary file, so no partial file is left.
func (a *Agent) stage(ctx context.Context, ns string, meta *wire.Meta, dest, side string, dtl dyad.DTL) error {
	return a.flights.do(dest+"\x00"+strconv.FormatInt(meta.Version, 10), func() error {
		// The destination is looked at first: usually it is missing, and its record
		// (left by an earlier version) need not be read.
		if st, err := os.Stat(dest); err == nil && st.Size() == meta.Size {
			if m, err := dyad.ReadStaged(dest, side); err == nil && m.Version == meta.Version && m.Key == meta.Key && m.Size == st.Size() {
				return nil // staged by the flight that just finished
			}
		}
		if err := a.checkRoom(filepath.Dir(dest), meta.Size); err != nil {
			return fmt.Errorf("refused %q version %d: %w", meta.Path, meta.Version, err)
		}
		start := time.Now()
		n, err := a.fetchDTL(ctx, dtl, meta, target{dest, side})
		took := time.Since(start)
		if err != nil {
			return fmt.Errorf("fetch %q version %d from %s: %w", meta.Path, meta.Version, meta.Owner, err)
		}
		a.log.Info("staged", append(transferAttrs(meta.Path, n, took),
			"version", meta.Version, "from", meta.Owner, "dtl", string(dtl))...)
		a.cache.markStaged(fullKey(ns, meta.Key), dest, side)
		a.ctr.stages.Add(1)
		a.ctr.stageBytes.Add(n)
		return nil
	})
}

// stagedRecord is the record a staged copy carries: meta without its content tag and
// signature, encoded.
func stagedRecord(meta *wire.Meta) ([]byte, error) { return wire.EncodeMeta(clientMeta(meta)) }

// init registers the rpc layer: a chunked stream over the agent connection.
func init() { registerDTL(dyad.DTLRPC, dtlDriver{fetch: (*Agent).fetch}) }

// fetch copies meta's file from its owner's agent over the agent connection.
func (a *Agent) fetch(ctx context.Context, meta *wire.Meta, to target) (n int64, err error) {
	d, err := a.startDownload(ctx, meta, to, &wire.Msg{Op: wire.OpFetch, Path: meta.Path, Version: meta.Version})
	if err != nil {
		return 0, err
	}
	defer func() { d.end(err) }()
	// The bytes go from the socket into the file in the kernel (splice, as a plain
	// io.Copy from a socket to a file does): no pass through user space on the receiving
	// path. The content hash reads each range back from the page cache, on goroutines of
	// its own, beside the transfer (not at all when the hash is off: it is the only
	// reader).
	if d.content.mac != nil {
		d.back = startReadBack(d.tmp, d.content, meta.Size)
	}
	for {
		d.idle()
		m, err := wire.Read(d.c)
		if err != nil {
			return n, fmt.Errorf("stream broke after %d of %d bytes: %w", n, meta.Size, err)
		}
		if m.Op == wire.OpEnd {
			break
		}
		if m.Op == wire.OpError {
			return n, fmt.Errorf("owner failed after %d bytes: %s", n, m.Err)
		}
		if m.Op != wire.OpChunk || n+m.N > meta.Size {
			return n, fmt.Errorf("unexpected %v (%d bytes) after %d of %d bytes", m.Op, m.N, n, meta.Size)
		}
		for left := m.N; left > 0; {
			k := min(left, splicePieceAt(n, meta.Size))
			d.idle()
			got, err := d.tmp.ReadFrom(io.LimitReader(d.c, k))
			if got > 0 && d.back != nil {
				d.back.add(n, got)
			}
			n += got
			left -= got
			if err == nil && got < k {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					err = fmt.Errorf("owner silent for too long: %w", err)
				}
				return n, fmt.Errorf("stream broke after %d of %d bytes: %w", n, meta.Size, err)
			}
		}
	}
	return n, d.commit(n)
}

// splicePiece is the most a staging moves from the socket into its file per call (the
// pipe that splice goes through holds 1 MiB): the idle deadline is renewed between calls.
const splicePiece = 1 << 20

// splicePieceAt is how much to splice next when n of size bytes are in the file. The hash
// reads a range back only once it is in the file, so the pieces start at the hasher's
// piece and double (the hash starts on the first 128 KiB, not after the first MiB), and
// shrink again towards the end, so that what is left to hash after the last byte is one
// small piece.
func splicePieceAt(n, size int64) int64 {
	return max(hashPiece, min(n, (size-n)/2, splicePiece))
}

// download is one fetch from an owner's agent, whatever the DTL: the control
// connection once the owner accepted, and the temporary file the bytes go to
// until they are verified and renamed into place.
type download struct {
	a    *Agent
	c    net.Conn
	stop func() bool
	meta *wire.Meta
	to   target
	tmp  *os.File
	// content checks the hash the signed record names, at commit.
	content *contentHasher
	// back, when set, reads the ranges already in tmp back for content.
	back *readBack
	// holes are the zero runs a DTL left unwritten in tmp (writeSparse), punched at commit.
	holes holes
	// clean says that the owner ended its reply: the connection may serve another fetch.
	clean bool
	// header is the owner's header message.
	header *wire.Msg
}

// startDownload sends req to the owner over an authenticated connection (a pooled one
// when there is one), checks the owner's header against meta and creates the
// temporary file next to its destination. The caller ends it with end, after commit on
// success.
func (a *Agent) startDownload(ctx context.Context, meta *wire.Meta, to target, req *wire.Msg) (*download, error) {
	var (
		d   *download
		h   *wire.Msg
		tmp *os.File
		err error
	)
	dropTmp := func() {
		if tmp != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}
	// One tag serves every attempt: a retry happens before any byte arrived.
	var mac *ContentMAC
	if !a.skipHash.Load() {
		if mac, err = newContentMAC(a.contentKey, meta.Hash[:min(len(meta.Hash), saltSize)]); err != nil {
			return nil, err
		}
	}
	for fresh := false; ; fresh = true {
		c, reused, derr := a.dialPeer(ctx, meta.Owner, fresh)
		if derr != nil {
			dropTmp()
			return nil, derr
		}
		d = &download{a: a, c: c, meta: meta, to: to, content: newContentHasher(mac)}
		d.stop = context.AfterFunc(ctx, func() { c.Close() })
		d.idle()
		if err = wire.Write(c, req); err == nil {
			// The temporary file is made, and its space reserved, while the owner opens
			// the file and replies.
			if tmp == nil {
				if tmp, err = a.createTemp(to.dest); err == nil {
					err = reserve(tmp, meta.Size)
				}
				if err != nil {
					d.end(err)
					dropTmp()
					return nil, err
				}
			}
			h, err = wire.Read(c)
		}
		if err != nil && reused && ctx.Err() == nil {
			// The owner closed the idle connection meanwhile (its keep-alive ended, or it
			// made room under a flood) before reading the request: ask again on a new one.
			d.end(err)
			continue
		}
		break
	}
	d.tmp, d.header = tmp, h // from here d.end removes tmp on failure
	fail := func(err error) (*download, error) {
		d.end(err)
		return nil, err
	}
	switch {
	case err != nil:
		return fail(fmt.Errorf("no reply: %w", err))
	case h.Op == wire.OpError:
		return fail(fmt.Errorf("owner refused: %s", h.Err))
	case h.Op != wire.OpHeader || h.Meta == nil:
		return fail(fmt.Errorf("owner sent %v, want a header", h.Op))
	case h.Meta.Size != meta.Size:
		return fail(fmt.Errorf("owner has %d bytes, metadata says %d (re-produced meanwhile?)", h.Meta.Size, meta.Size))
	}
	return d, nil
}

// createTemp creates the temporary file that a download or a sidecar bound for dest
// fills, beside dest (so that the rename into place stays on one file system), creating
// its directory. It holds the file's OFD lock until the file is renamed into place or
// closed, so that a sweep (sweep.go) never takes it for a crashed staging's; the first
// temporary file in a directory starts that directory's sweep.
func (a *Agent) createTemp(dest string) (*os.File, error) {
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, dyad.TempPattern(dest))
	if err != nil {
		return nil, err
	}
	// A new file: nobody else holds it. Where OFD locks are not supported, a sweep cannot
	// lock it either, so it is never swept.
	ofd.TryLock(f, true)
	a.sweepOnce(dir)
	return f, nil
}

// idle renews the connection's deadline while the owner keeps talking.
func (d *download) idle() { d.c.SetDeadline(time.Now().Add(d.a.opts.IdleTimeout)) }

// commit checks the n bytes received against the size and checksum the
// producer published, then renames the file into place. Zero runs a DTL
// skipped as holes are covered by setting the size.
func (d *download) commit(n int64) error {
	d.clean = true // the owner's reply ended: the connection is ready for another request
	if n != d.meta.Size {
		return fmt.Errorf("got %d bytes, want %d", n, d.meta.Size)
	}
	// Size and mode are set while the hash may still be finishing: they publish nothing
	// before the rename.
	if err := d.tmp.Truncate(n); err != nil {
		return err
	}
	d.holes.punch(d.tmp)
	// The staged copy keeps the source's mode (the temporary file is 0600).
	if d.meta.Mode != 0 {
		if err := d.tmp.Chmod(os.FileMode(d.meta.Mode).Perm()); err != nil {
			return err
		}
	}
	// The checks ran beside the transfer; what is left of them after the last byte (the
	// ranges still being read back) is their whole cost to the staging time.
	t0 := time.Now()
	if d.back != nil {
		if err := d.back.close(); err != nil {
			return err
		}
	}
	h := d.content.Sum()
	d.a.ctr.hashWaitNs.Add(time.Since(t0).Nanoseconds())
	if d.content.mac != nil && !bytes.Equal(h, d.meta.Hash) {
		return fmt.Errorf("content checksum: tag %x, the signed record names %x (not the bytes published)", h, d.meta.Hash)
	}
	// The copy carries its record into place, so that both appear at once; where it
	// cannot, the record goes to the sidecar right after the rename.
	rec, err := stagedRecord(d.meta)
	if err != nil {
		return err
	}
	attrErr := dyad.SetStagedAttr(d.tmp, rec)
	// Renamed while open: its lock (createTemp) lasts as long as its temporary name.
	if err := os.Rename(d.tmp.Name(), d.to.dest); err != nil {
		return err
	}
	if err := d.tmp.Close(); err != nil {
		os.Remove(d.to.dest)
		return err
	}
	if attrErr != nil {
		if err := d.a.writeAtomic(d.to.side, rec); err != nil {
			return fmt.Errorf("record of %q version %d: %w", d.meta.Path, d.meta.Version, err)
		}
	}
	return nil
}

// end releases the connection: back to the pool after a clean fetch, closed otherwise.
// After a failure it removes the temporary file, so no partial file is ever left.
func (d *download) end(err error) {
	if d.back != nil {
		d.back.abort() // its goroutines read tmp: they end before tmp is removed
	}
	if d.stop() && err == nil && d.clean {
		d.a.peers.put(d.meta.Owner, d.c)
	} else {
		d.c.Close()
	}
	if err != nil && d.tmp != nil {
		d.tmp.Close()
		os.Remove(d.tmp.Name())
	}
}

// writeAtomic writes b to p through a temporary file and a rename. The temporary file is
// a staging's (createTemp): locked while it lives, swept once an agent crash left it. An
// existing p is removed first: ext4 (auto_da_alloc) forces out the data of a file renamed
// over another, which cost up to tens of milliseconds under load; a reader that looks in
// between finds no record and goes through the agent, which serialises with this staging.
func (a *Agent) writeAtomic(p string, b []byte) error {
	tmp, err := a.createTemp(p)
	if err != nil {
		return err
	}
	defer tmp.Close()
	if _, err := tmp.Write(b); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	os.Remove(p)
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
