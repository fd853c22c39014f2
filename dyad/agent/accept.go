package agent

import (
	"container/list"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// gate bounds the agent's connections. Every accepted connection counts against max
// until it closes. A connection is "pre-auth" from its accept until it has proven who it
// is and sent its request; when the agent is full, or out of descriptors, the oldest
// pre-auth connection is closed to make room, so a flood of idle connections cannot keep
// a legitimate client out: it is served as soon as it speaks.
type gate struct {
	mu  sync.Mutex
	max int
	n   int
	pre list.List // of *gated, oldest first
}

// gated is one connection passing the gate.
type gated struct {
	net.Conn
	g    *gate
	elem *list.Element // in g.pre while pre-auth
}

// admit lets c in, evicting the oldest pre-auth connection when the gate is full. It
// returns nil (and closes c) when the gate is full of admitted connections.
func (g *gate) admit(c net.Conn) (*gated, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	evicted := false
	if g.n >= g.max {
		if !g.evictLocked() {
			c.Close()
			return nil, false
		}
		evicted = true
	}
	g.n++
	t := &gated{Conn: c, g: g}
	t.elem = g.pre.PushBack(t)
	return t, evicted
}

// evict closes the oldest pre-auth connection, if any.
func (g *gate) evict() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.evictLocked()
}

func (g *gate) evictLocked() bool {
	e := g.pre.Front()
	if e == nil {
		return false
	}
	t := g.pre.Remove(e).(*gated)
	t.elem = nil
	t.Conn.Close() // its server sees the read fail and releases its slot
	return true
}

// authed marks t as past authentication: it is no longer evicted to make room.
func (t *gated) authed() {
	t.g.mu.Lock()
	defer t.g.mu.Unlock()
	if t.elem != nil {
		t.g.pre.Remove(t.elem)
		t.elem = nil
	}
}

// waiting marks t, an authenticated connection now idle between requests, as evictable
// again: an idle kept-alive connection never keeps a newcomer out.
func (t *gated) waiting() {
	t.g.mu.Lock()
	defer t.g.mu.Unlock()
	if t.elem == nil {
		t.elem = t.g.pre.PushBack(t)
	}
}

// release frees t's slot once its connection is closed.
func (t *gated) release() {
	t.g.mu.Lock()
	defer t.g.mu.Unlock()
	if t.elem != nil {
		t.g.pre.Remove(t.elem)
		t.elem = nil
	}
	t.g.n--
}

// accept serves l until the agent closes. It never returns on a transient error: out of
// descriptors (EMFILE, ENFILE) it evicts the oldest pre-auth connection and backs off,
// and an aborted connection (ECONNABORTED) is skipped.
func (a *Agent) accept(l net.Listener, serve func(*gated)) {
	defer a.wg.Done()
	const minBackoff, maxBackoff = 5 * time.Millisecond, time.Second
	backoff := minBackoff
	var failing bool // one log line per run of failures, not one per attempt
	for {
		c, err := l.Accept()
		if err != nil {
			if a.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			a.ctr.acceptErrors.Add(1)
			if !failing {
				a.errs.Printf("accept on %s: %v (retrying)", l.Addr(), err)
				failing = true
			}
			if errors.Is(err, syscall.ECONNABORTED) {
				continue
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				if a.gate.evict() {
					a.ctr.connsEvicted.Add(1)
				}
			}
			select {
			case <-time.After(backoff):
			case <-a.ctx.Done():
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		if failing {
			a.info.Printf("accept on %s works again", l.Addr())
			failing = false
		}
		backoff = minBackoff
		a.ctr.connsAccepted.Add(1)
		t, evicted := a.gate.admit(c)
		if evicted {
			a.ctr.connsEvicted.Add(1)
		}
		if t == nil {
			a.ctr.connsRefused.Add(1)
			continue
		}
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			defer t.release()
			defer t.Close()
			stop := context.AfterFunc(a.ctx, func() { t.Close() })
			defer stop()
			serve(t)
		}()
	}
}

// peerUID returns the kernel-verified uid of the process at the other end of a Unix
// socket connection (SO_PEERCRED).
func peerUID(c net.Conn) (uint32, error) {
	if g, ok := c.(*gated); ok {
		c = g.Conn
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, errors.New("not a Unix socket connection")
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	return cred.Uid, nil
}

// defaultMaxConns is 4096 connections, or a third of the descriptors RLIMIT_NOFILE leaves
// after a reserve for etcd, logs and the files being served (each served connection may
// hold a file and a staging a temporary file and a connection to the owner).
func defaultMaxConns() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<20 {
		return 4096
	}
	return int(min(4096, max(8, (int64(rl.Cur)-128)/3)))
}

// serveRequests hands each request read from c to serve until serve says the connection
// cannot carry another (its reply did not end cleanly) or a read fails: the first request
// must come within PreAuthTimeout, each later one within idle, and between requests c is
// evictable again, as before its first. who names the client in the log of a malformed
// first request.
func (a *Agent) serveRequests(c *gated, who string, idle time.Duration, serve func(*wire.Msg) bool) {
	wait := a.opts.PreAuthTimeout
	for first := true; ; first = false {
		c.SetReadDeadline(time.Now().Add(wait))
		m, err := wire.Read(c)
		if err != nil {
			if first && !errors.Is(err, io.EOF) {
				a.errs.Printf("bad request from %s: %v", who, err)
			}
			return
		}
		c.authed()
		if !serve(m) {
			return
		}
		c.waiting()
		wait = idle
	}
}
