package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/kvs"
)

// serveLocal answers the requests of a client on this node: one, or after a staging that
// ended cleanly, the client's next one on the same connection (a client keeps it for its
// next staging, which then skips the connect and the credential checks).
// Only the agent's own user and root may use it: the kernel vouches for the peer's uid
// (SO_PEERCRED), whatever the socket file's permissions.
func (a *Agent) serveLocal(c *gated) {
	if uid, err := peerUID(c); err != nil || (uid != uint32(os.Getuid()) && uid != 0) {
		a.ctr.unauthorized.Add(1)
		a.errs.Printf("refused a local client of uid %d (err %v): only uid %d and root may use this agent", uid, err, os.Getuid())
		wire.Write(c, &wire.Msg{Op: wire.OpError, Err: fmt.Sprintf("unauthorized: this agent serves uid %d only", os.Getuid())})
		return
	}
	a.serveRequests(c, "a local client", a.opts.IdleTimeout, func(m *wire.Msg) bool {
		c.SetReadDeadline(time.Time{})
		a.ctr.localRequests.Add(1)
		if a.opts.Debug {
			a.log.Debug("local request", "op", m.Op.String(), "ns", m.NS, "path", pathOrKey(m))
		}
		var again bool
		var err error
		if m.Op == wire.OpStage {
			again, err = a.serveStage(c, m)
		} else {
			err = a.handleLocal(c, m)
		}
		if err != nil {
			if a.ctx.Err() == nil {
				a.log.Error("local request failed", "op", m.Op.String(), "path", pathOrKey(m), "err", err)
			}
			wire.Write(c, &wire.Msg{Op: wire.OpError, Err: err.Error()})
			return false
		}
		return again
	})
}

// serveStage answers an OpStage request; again says that the reply went out cleanly and
// nothing else was read from c, so that c may carry the client's next request.
func (a *Agent) serveStage(c net.Conn, m *wire.Msg) (again bool, err error) {
	// The staging ends when the client goes away: a read on c sees it (the client sends
	// nothing else meanwhile). The read is stopped before the reply, so that it never
	// takes a byte of the client's next request. It starts only once the staging outlasts
	// watchAfter: most end sooner, and stopping a read costs two goroutine wake-ups.
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	watched := make(chan bool, 1)
	watch := time.AfterFunc(watchAfter, func() {
		var b [1]byte
		_, err := c.Read(b[:])
		quiet := errors.Is(err, os.ErrDeadlineExceeded)
		if !quiet {
			cancel()
		}
		watched <- quiet
	})
	stopWatch := func() bool {
		if watch.Stop() {
			return true // never started
		}
		c.SetReadDeadline(time.Unix(1, 0))
		quiet := <-watched
		c.SetReadDeadline(time.Time{})
		return quiet
	}
	reply, err := a.stageRequest(ctx, m)
	if !stopWatch() {
		if err == nil {
			err = errors.New("the client went away or spoke during its staging")
		}
		return false, err
	}
	if err != nil {
		return false, err
	}
	return reply.Found, wire.Write(c, reply)
}

func (a *Agent) handleLocal(c net.Conn, m *wire.Msg) error {
	ctx := a.ctx
	switch m.Op {
	case wire.OpPublish:
		meta, err := a.publish(ctx, m)
		if err != nil {
			return err
		}
		return wire.Write(c, &wire.Msg{Op: wire.OpEnd, Found: true, Meta: clientMeta(meta)})
	case wire.OpLookup:
		meta, ok := a.cache.get(fullKey(m.NS, m.Key))
		if ok && meta.Version >= m.MinVersion {
			a.ctr.cacheHits.Add(1)
			return wire.Write(c, &wire.Msg{Op: wire.OpEnd, Found: true, Meta: clientMeta(meta)})
		}
		a.ctr.cacheMisses.Add(1)
		return wire.Write(c, &wire.Msg{Op: wire.OpEnd})
	case wire.OpWait:
		// Stop waiting if the client goes away.
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			var b [1]byte
			c.Read(b[:])
			cancel()
		}()
		meta, err := a.waitRecord(wctx, m.NS, m.Key, pathOrKey(m), m.MinVersion, time.Duration(m.TimeoutMs)*time.Millisecond)
		if err != nil || meta == nil {
			if err == nil {
				err = wire.Write(c, &wire.Msg{Op: wire.OpEnd})
			}
			return err
		}
		return wire.Write(c, &wire.Msg{Op: wire.OpEnd, Found: true, Meta: clientMeta(meta)})
	case wire.OpList:
		kctx, cancel := a.kvsCtx(ctx, time.Duration(m.TimeoutMs)*time.Millisecond)
		defer cancel()
		es, _, err := nsKV(a.kv, m.NS).List(kctx, m.Key)
		if err != nil {
			return err
		}
		for _, e := range es {
			meta, err := wire.DecodeMeta(e.Value)
			if err != nil {
				continue
			}
			if err := wire.Write(c, &wire.Msg{Op: wire.OpMeta, Meta: clientMeta(meta)}); err != nil {
				return err
			}
		}
		return wire.Write(c, &wire.Msg{Op: wire.OpEnd})
	case wire.OpStats:
		return wire.Write(c, &wire.Msg{Op: wire.OpEnd, Counters: a.Counters()})
	}
	return fmt.Errorf("%v is not a local request", m.Op)
}

// publish records a produced file in the KVS with the next version. The KVS's deadline
// runs from the update, not from the request: hashing a large file first is no reason
// to give the KVS less time.
func (a *Agent) publish(ctx context.Context, m *wire.Msg) (*wire.Meta, error) {
	start := time.Now()
	in := m.Meta
	if in == nil || in.Key == "" || in.Key != m.Key {
		return nil, errors.New("publish needs metadata with its key")
	}
	// The file must be the one this agent would serve: under its producer directory.
	prod, _ := filepath.Abs(a.opts.ProducerDir)
	if want := filepath.Join(prod, filepath.FromSlash(in.Path)); m.Path != "" && filepath.Clean(m.Path) != want {
		ps, e1 := os.Stat(m.Path)
		ws, e2 := os.Stat(want)
		if e1 != nil || e2 != nil || !os.SameFile(ps, ws) {
			return nil, fmt.Errorf("%s is not under this agent's producer directory %s", m.Path, prod)
		}
	}
	f, err := a.openConfined(in.Path)
	if err != nil {
		a.ctr.rejected.Add(1)
		a.errs.Printf("rejected publish of %q: %v", in.Path, err)
		return nil, fmt.Errorf("rejected %q: %w", in.Path, err)
	}
	// The record names the file's mode and content hash, taken by this agent from the
	// file it serves, whatever the client said.
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %q: %w", in.Path, err)
	}
	sum, crc, n, err := a.hashFile(f, newSalt())
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("hash %q: %w", in.Path, err)
	}
	if n != in.Size {
		return nil, fmt.Errorf("%q has %d bytes, the publish says %d (still being written?)", in.Path, n, in.Size)
	}
	// The record's CRC-32C and hash must describe the same bytes: consumers check the
	// hash only, and local copies are later checked by the CRC (DYAD_SYNC_CHECK).
	if crc != in.Checksum {
		return nil, fmt.Errorf("%q has CRC-32C %08x, the publish says %08x (changed while being published?)", in.Path, crc, in.Checksum)
	}
	var budget time.Duration
	if m.TimeoutMs > 0 {
		budget = max(time.Duration(m.TimeoutMs)*time.Millisecond-time.Since(start), time.Millisecond)
	}
	kctx, cancel := a.kvsCtx(ctx, budget)
	defer cancel()
	var out *wire.Meta
	_, err = nsKV(a.kv, m.NS).Update(kctx, in.Key, func(old []byte, found bool) ([]byte, error) {
		next := *in
		next.Owner, next.Node, next.Version = a.opts.Advertise, a.opts.Node, 1
		if found {
			if om, err := wire.DecodeMeta(old); err == nil {
				next.Version = om.Version + 1
			}
		}
		next.Hash, next.Mode = sum, uint32(st.Mode().Perm())
		a.sign(&next)
		out = &next
		return wire.EncodeMeta(&next)
	})
	if err != nil {
		return nil, err
	}
	a.cache.put(fullKey(m.NS, in.Key), out)
	a.live.hold(fullKey(m.NS, in.Key), out)
	a.ctr.publishes.Add(1)
	if a.opts.Debug {
		a.info.Printf("published %s version %d (%d bytes)", strings.TrimSpace(out.Path), out.Version, out.Size)
	}
	return out, nil
}

// locate finds the record of an OpStage m that names a key: in this node's cache, else in
// the KVS, waiting up to m.WaitMs, as a client's locator would ask, level by level. It
// returns nil, and no error, when no version >= m.MinVersion appeared in time.
func (a *Agent) locate(ctx context.Context, m *wire.Msg) (*wire.Meta, dyad.Level, error) {
	if meta, ok := a.cache.get(fullKey(m.NS, m.Key)); ok && meta.Version >= m.MinVersion {
		a.ctr.cacheHits.Add(1)
		return meta, dyad.LevelAgent, nil
	}
	a.ctr.cacheMisses.Add(1)
	meta, err := a.waitRecord(ctx, m.NS, m.Key, m.Key, m.MinVersion, time.Duration(m.WaitMs)*time.Millisecond)
	return meta, dyad.LevelKVS, err
}

// waitRecord reads the record of key in namespace ns from the global KVS, waiting up to
// timeout (0: one read) for a version >= minVersion, and caches it. It returns nil, and
// no error, when none appeared in time; an error when the KVS does not answer. name
// names the file in errors.
func (a *Agent) waitRecord(ctx context.Context, ns, key, name string, minVersion int64, timeout time.Duration) (*wire.Meta, error) {
	a.ctr.kvsWaits.Add(1)
	accept := func(v []byte) bool {
		meta, err := wire.DecodeMeta(v)
		return err == nil && meta.Version >= minVersion
	}
	var val []byte
	if timeout == 0 {
		// No wait: one read of the KVS.
		kctx, cancel := a.kvsCtx(ctx, 0)
		v, found, _, err := nsKV(a.kv, ns).Get(kctx, key)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("look up %s: %w", name, err)
		}
		if !found || !accept(v) {
			return nil, nil
		}
		val = v
	} else {
		v, err := kvs.WaitFor(ctx, nsKV(a.kv, ns), key, timeout, accept)
		if err != nil {
			// Not produced in time is an answer, not a failure: the client says so
			// with the path, which it knows. Unless the KVS itself does not answer.
			if errors.Is(err, kvs.ErrTimeout) {
				if perr := a.probeKVS(); perr != nil {
					return nil, fmt.Errorf("wait for %s: %w", name, perr)
				}
				return nil, nil
			}
			return nil, fmt.Errorf("wait for %s: %w", name, err)
		}
		val = v
	}
	meta, err := wire.DecodeMeta(val)
	if err != nil {
		return nil, err
	}
	a.cache.put(fullKey(ns, key), meta)
	return meta, nil
}

// pathOrKey names a request's file for errors and logs: its path when the client sent
// one, else its key.
func pathOrKey(m *wire.Msg) string {
	if m.Path != "" {
		return m.Path
	}
	return m.Key
}

// probeKVS reads one key with a short deadline: nil when the KVS answers, else an error
// naming its endpoint.
func (a *Agent) probeKVS() error {
	ctx, cancel := context.WithTimeout(a.ctx, min(2*time.Second, a.opts.KVSTimeout))
	defer cancel()
	_, _, _, err := a.kv.Get(ctx, "/couplet/probe")
	return err
}

// stageRequest stages the file of an OpStage request m (locating its record first when m
// names only a key) and returns the reply: an OpEnd with Found false when no version
// appeared in time.
func (a *Agent) stageRequest(ctx context.Context, m *wire.Msg) (*wire.Msg, error) {
	if m.Dest == "" || m.Path == "" || (m.Meta == nil && m.Key == "") {
		return nil, errors.New("stage needs metadata or a key, a destination and a sidecar path")
	}
	dtl := a.dtl
	if m.DTL != "" {
		d, err := dyad.ParseDTL(m.DTL)
		if err != nil {
			return nil, err
		}
		dtl = d
	}
	want, reply := m.Meta, &wire.Msg{Op: wire.OpEnd, Found: true}
	if want == nil {
		// A consume in one request: the record is located here, then staged.
		t0 := time.Now()
		rec, level, err := a.locate(ctx, m)
		if err != nil || rec == nil {
			return &wire.Msg{Op: wire.OpEnd}, err // not produced in time when no error
		}
		want, reply.Level, reply.LocateNs = rec, uint8(level), time.Since(t0).Nanoseconds()
	}
	// The transfer runs under its client's deadline.
	sctx := ctx
	if m.TimeoutMs > 0 {
		var scancel context.CancelFunc
		sctx, scancel = context.WithTimeout(ctx, time.Duration(m.TimeoutMs)*time.Millisecond)
		defer scancel()
	}
	// Stage by the signed record in the KVS, never by what the client passed on.
	kctx, kcancel := a.kvsCtx(sctx, 0)
	rec, err := a.signedRecord(kctx, m.NS, want)
	kcancel()
	if err != nil {
		return nil, err
	}
	rec, err = a.stageLive(sctx, m.NS, rec, func(ctx context.Context, r *wire.Meta) error {
		return a.stage(ctx, m.NS, r, m.Dest, m.Path, dtl)
	})
	if err != nil {
		return nil, err
	}
	reply.Meta = clientMeta(rec)
	return reply, nil
}

// watchAfter is how long a staging runs before its agent watches for the client going away.
const watchAfter = 2 * time.Millisecond
