package dyad

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

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
