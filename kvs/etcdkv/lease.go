package etcdkv

import (
	"context"
	"math"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	clientv3 "go.etcd.io/etcd/client/v3"
)

var _ kvs.Leaser = (*Store)(nil)

// Grant implements kvs.Leaser with an etcd lease (whole seconds, at least one) and the
// client's keepalive stream, which renews it every third of its TTL.
func (s *Store) Grant(ctx context.Context, ttl time.Duration) (kvs.Lease, error) {
	secs := max(int64(math.Ceil(ttl.Seconds())), 1)
	r, err := s.c.Grant(ctx, secs)
	if err != nil {
		return nil, s.fail("grant a lease", "", err)
	}
	// The keepalive outlives the caller's ctx: it ends with Revoke or the client.
	kctx, cancel := context.WithCancel(context.Background())
	ch, err := s.c.KeepAlive(kctx, r.ID)
	if err != nil {
		cancel()
		s.c.Revoke(ctx, r.ID)
		return nil, s.fail("keep a lease alive", "", err)
	}
	l := &lease{s: s, id: r.ID, ttl: time.Duration(r.TTL) * time.Second, cancel: cancel, lost: make(chan struct{})}
	go func() {
		// The client closes the stream when the lease expired, was revoked, or got no
		// answer within its TTL (the store is unreachable).
		for range ch {
		}
		close(l.lost)
	}()
	return l, nil
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
