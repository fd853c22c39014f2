package etcdkv

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

var _ kvs.Leaser = (*Store)(nil)

// Grant implements kvs.Leaser with an etcd lease (whole seconds, at least one), which
// keep renews every third of its TTL.
func (s *Store) Grant(ctx context.Context, ttl time.Duration) (kvs.Lease, error) {
	secs := max(int64(math.Ceil(ttl.Seconds())), 1)
	r, err := s.c.Grant(ctx, secs)
	if err != nil {
		return nil, s.fail("grant a lease", "", err)
	}
	// The renewals outlive the caller's ctx: they end with Revoke, or once they fail past the TTL.
	kctx, cancel := context.WithCancel(context.Background())
	l := &lease{s: s, id: r.ID, ttl: time.Duration(r.TTL) * time.Second, cancel: cancel, lost: make(chan struct{})}
	go l.keep(kctx, time.Now().Add(l.ttl))
	return l, nil
}

// keep renews the lease every third of its TTL until ctx ends, the lease is gone from
// the store, or no renewal succeeded before it would have expired; then it closes
// lost. Each renewal is its own bounded call rather than one long keepalive stream: a
// stream stays on the member it was opened to, and when that member is cut off (its
// node's link is down) the stream hangs silently while the lease runs out, although
// the other members have quorum. A bounded call that hangs is given up and the next
// goes through another connection.
func (l *lease) keep(ctx context.Context, expires time.Time) {
	defer close(l.lost)
	every, try := l.ttl/3, l.ttl/5
	timer := time.NewTimer(every)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		actx, cancel := context.WithTimeout(ctx, min(try, max(time.Until(expires), time.Millisecond)))
		r, err := l.s.c.KeepAliveOnce(actx, l.id)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && r.TTL > 0:
			expires = time.Now().Add(time.Duration(r.TTL) * time.Second)
			timer.Reset(every)
		case err == nil, errors.Is(err, rpctypes.ErrLeaseNotFound), !time.Now().Before(expires):
			return // expired in the store, or surely by now
		default:
			timer.Reset(min(try/4, time.Until(expires))) // try again soon, maybe elsewhere
		}
	}
}

type lease struct {
	s      *Store
	id     clientv3.LeaseID
	ttl    time.Duration
	cancel context.CancelFunc
	lost   chan struct{}
}

func (l *lease) Put(ctx context.Context, key string, val []byte) (int64, error) {
	r, err := l.s.c.Put(ctx, key, string(val), clientv3.WithLease(l.id))
	if err != nil {
		return 0, l.s.fail("put", key, err)
	}
	return r.Header.Revision, nil
}

func (l *lease) Lost() <-chan struct{} { return l.lost }

func (l *lease) TTL() time.Duration { return l.ttl }

func (l *lease) Revoke(ctx context.Context) error {
	l.cancel()
	if _, err := l.s.c.Revoke(ctx, l.id); err != nil {
		return l.s.fail("revoke a lease", "", err)
	}
	return nil
}
