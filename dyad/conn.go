package dyad

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// ErrAgent is wrapped by errors the agent reported.
var ErrAgent = errors.New("agent")

// call sends one request to the local agent and returns its single reply.
// Each request uses its own connection, so concurrent calls never wait on each other.
func call(ctx context.Context, socket string, req *wire.Msg, timeout time.Duration) (*wire.Msg, error) {
	var out *wire.Msg
	err := stream(ctx, socket, req, timeout, func(m *wire.Msg) bool { out = m; return false })
	return out, err
}

// dialAgent connects to the agent at socket and checks who runs it.
func dialAgent(ctx context.Context, socket string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("dyad: no agent at %s (start one with `couplet agent`): %w", socket, err)
	}
	if err := checkAgentUID(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("dyad: agent at %s: %w", socket, err)
	}
	return c, nil
}

// stream sends one request and hands each reply to fn until fn returns false or an
// OpEnd arrives.
func stream(ctx context.Context, socket string, req *wire.Msg, timeout time.Duration, fn func(*wire.Msg) bool) error {
	c, err := dialAgent(ctx, socket)
	if err != nil {
		return err
	}
	defer c.Close()
	if timeout > 0 {
		c.SetDeadline(time.Now().Add(timeout))
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := wire.Write(c, req); err != nil {
		return fmt.Errorf("dyad: %v request to agent: %w", req.Op, err)
	}
	for {
		m, err := wire.Read(c)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return fmt.Errorf("dyad: %v reply from agent at %s: %w", req.Op, socket, err)
		}
		switch m.Op {
		case wire.OpError:
			return fmt.Errorf("%w: %s", ErrAgent, m.Err)
		case wire.OpEnd:
			if req.Op == wire.OpList {
				return nil
			}
		}
		if !fn(m) {
			return nil
		}
	}
}

// ErrAgentOwner is wrapped when the process behind the agent socket belongs to another
// user: it could be a squatter on the socket path, so nothing is sent to it.
var ErrAgentOwner = errors.New("agent socket owned by another user")

// checkAgentUID checks, with the kernel's word (SO_PEERCRED), that the agent listening on
// c runs as this user, as root, or as the uid in COUPLET_AGENT_UID.
func checkAgentUID(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("peer credentials: %w", cerr)
	}
	if cred.Uid == uint32(os.Getuid()) || cred.Uid == 0 {
		return nil
	}
	if s := os.Getenv("COUPLET_AGENT_UID"); s != "" && s == strconv.FormatUint(uint64(cred.Uid), 10) {
		return nil
	}
	return fmt.Errorf("%w: uid %d (pid %d), not %d, root or $COUPLET_AGENT_UID", ErrAgentOwner, cred.Uid, cred.Pid, os.Getuid())
}

// agentConns keeps a client's connection to its agent between stagings: the agent
// serves a staging's client's next request on the same connection, so a run of
// stagings pays for one connect and one credential check. A connection is only ever
// idle here, never shared by two requests.
type agentConns struct {
	mu     sync.Mutex
	idle   map[string]idleConn // by socket path
	closed bool
}

type idleConn struct {
	c     net.Conn
	since time.Time
}

// maxAgentIdle is how long a connection is kept idle for reuse, well under the agent's
// idle timeout (30 s by default), after which the agent closes it.
const maxAgentIdle = 5 * time.Second

func (p *agentConns) get(socket string) net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	ic, ok := p.idle[socket]
	if !ok {
		return nil
	}
	delete(p.idle, socket)
	if time.Since(ic.since) >= maxAgentIdle {
		ic.c.Close()
		return nil
	}
	return ic.c
}

func (p *agentConns) put(socket string, c net.Conn) {
	c.SetDeadline(time.Time{})
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return
	}
	if old, ok := p.idle[socket]; ok {
		old.c.Close()
	}
	if p.idle == nil {
		p.idle = map[string]idleConn{}
	}
	p.idle[socket] = idleConn{c, time.Now()}
}

func (p *agentConns) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, ic := range p.idle {
		ic.c.Close()
	}
	p.idle = nil
}

// callStage sends an OpStage request and returns its single reply, on the kept
// connection when there is one. A kept connection that the agent closed meanwhile (its
// idle timeout, a restart) fails before any reply: the request is then sent again on a
// new connection; staging again is harmless.
func (p *agentConns) callStage(ctx context.Context, socket string, req *wire.Msg, timeout time.Duration) (*wire.Msg, error) {
	for {
		c := p.get(socket)
		reused := c != nil
		if !reused {
			var err error
			if c, err = dialAgent(ctx, socket); err != nil {
				return nil, err
			}
		}
		if timeout > 0 {
			c.SetDeadline(time.Now().Add(timeout))
		}
		if dl, ok := ctx.Deadline(); ok {
			c.SetDeadline(dl)
		}
		stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
		err := wire.Write(c, req)
		var m *wire.Msg
		if err == nil {
			m, err = wire.Read(c)
		}
		stopped := stop()
		if err != nil {
			c.Close()
			if reused && ctx.Err() == nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return nil, fmt.Errorf("dyad: %v reply from agent at %s: %w", req.Op, socket, err)
		}
		if m.Op == wire.OpError {
			c.Close()
			return nil, fmt.Errorf("%w: %s", ErrAgent, m.Err)
		}
		// Only a staging that found its file leaves the connection open on the agent's side.
		if m.Found && stopped {
			p.put(socket, c)
		} else {
			c.Close()
		}
		return m, nil
	}
}
