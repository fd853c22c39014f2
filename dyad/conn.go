package dyad

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
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

// stream sends one request and hands each reply to fn until fn returns false or an
// OpEnd arrives.
func stream(ctx context.Context, socket string, req *wire.Msg, timeout time.Duration, fn func(*wire.Msg) bool) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return fmt.Errorf("dyad: no agent at %s (start one with `couplet agent`): %w", socket, err)
	}
	defer c.Close()
	if err := checkAgentUID(c); err != nil {
		return fmt.Errorf("dyad: agent at %s: %w", socket, err)
	}
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
