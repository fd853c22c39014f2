package agent

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/dyad/peerauth"
)

// peerPool keeps the authenticated connections to owner agents that finished a fetch
// cleanly, so the next fetch from the same owner skips the dial and the handshake: a
// small file then costs one request and its reply. Each connection was authenticated
// (peerauth) once, when it was dialled; a connection is only ever idle here, never
// shared by two fetches at once.
type peerPool struct {
	mu     sync.Mutex
	idle   map[string][]pooledConn // by owner address, most recently used last
	closed bool
}

type pooledConn struct {
	c     net.Conn
	since time.Time
}

// maxIdlePerPeer bounds the idle connections kept per owner: as many as fetches from
// one owner usually overlap, so that a burst does not pin descriptors on both sides.
const maxIdlePerPeer = 4

// get returns an idle connection to addr that has been idle less than maxAge, closing
// any older ones, or nil.
func (p *peerPool) get(addr string, maxAge time.Duration) net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := p.idle[addr]
	for len(cs) > 0 {
		pc := cs[len(cs)-1]
		cs = cs[:len(cs)-1]
		if time.Since(pc.since) < maxAge {
			p.idle[addr] = cs
			return pc.c
		}
		pc.c.Close()
	}
	delete(p.idle, addr)
	return nil
}

// put keeps c for the next fetch from addr, or closes it when the pool is full or closed.
func (p *peerPool) put(addr string, c net.Conn) {
	c.SetDeadline(time.Time{})
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle[addr]) >= maxIdlePerPeer {
		c.Close()
		return
	}
	if p.idle == nil {
		p.idle = map[string][]pooledConn{}
	}
	p.idle[addr] = append(p.idle[addr], pooledConn{c, time.Now()})
}

// close closes every idle connection; later puts close theirs.
func (p *peerPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, cs := range p.idle {
		for _, pc := range cs {
			pc.c.Close()
		}
	}
	p.idle = nil
}

// peerKeepAlive is how long an owner's agent keeps an idle peer connection open for its
// next request; the consumer's side reuses one only while it is younger than half that,
// so that it never sends a request into a connection the owner is closing.
func (a *Agent) peerKeepAlive() time.Duration { return a.opts.IdleTimeout }

// dialPeer returns an authenticated connection to the owner at addr: an idle one from
// the pool (reused true) or a new one that has just passed the handshake.
func (a *Agent) dialPeer(ctx context.Context, addr string, fresh bool) (c net.Conn, reused bool, err error) {
	if !fresh {
		if c := a.peers.get(addr, a.peerKeepAlive()/2); c != nil {
			return c, true, nil
		}
	}
	dl := net.Dialer{Timeout: 10 * time.Second}
	if c, err = dl.DialContext(ctx, "tcp", addr); err != nil {
		return nil, false, err
	}
	// The handshake gives up with the client's deadline too.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	err = peerauth.Client(c, []byte(a.opts.Token), a.opts.IdleTimeout)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		c.Close()
		return nil, false, err
	}
	return c, false, nil
}
