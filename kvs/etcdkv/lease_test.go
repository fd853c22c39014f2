package etcdkv_test

import (
	"context"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

// TestLeaseLifecycle checks the three ways a lease's life goes: kept past several
// TTLs while the store answers, lost within its TTL once the store is gone, and
// ended at once by Revoke, which deletes its keys.
func TestLeaseLifecycle(t *testing.T) {
	srv := etcdtest.StartServer(t)
	dial := func() *etcdkv.Store {
		s, err := etcdkv.Dial(context.Background(), []string{srv.Endpoint})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := dial()
	ctx := context.Background()
	grant := func(key string) kvs.Lease {
		l, err := s.Grant(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Put(ctx, key, []byte("v")); err != nil {
			t.Fatal(err)
		}
		return l
	}

	// Renewed: the key outlives three TTLs, and no delete is seen meanwhile.
	kept := grant("/lease/kept")
	_, _, rev, err := s.Get(ctx, "/lease/kept")
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	events, err := s.Watch(wctx, "/lease/kept", rev+1)
	if err != nil {
		t.Fatal(err)
	}
	window := time.After(3 * kept.TTL())
	for watching := true; watching; {
		select {
		case ev := <-events:
			t.Fatalf("the kept lease's key changed within three TTLs: %+v", ev)
		case <-kept.Lost():
			t.Fatal("the lease was lost while the store answered")
		case <-window:
			watching = false
		}
	}
	cancel()

	// Revoked: Lost closes and the key is gone.
	if err := kept.Revoke(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-kept.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed after Revoke")
	}
	if _, found, _, err := s.Get(ctx, "/lease/kept"); err != nil || found {
		t.Fatalf("after Revoke: found %v, err %v; want the key deleted", found, err)
	}

	// Store gone: Lost closes within the TTL (plus one renewal attempt), not later.
	doomed := grant("/lease/doomed")
	srv.Stop()
	start := time.Now()
	select {
	case <-doomed.Lost():
		t.Logf("lost %v after the store stopped (TTL %v)", time.Since(start).Round(time.Millisecond), doomed.TTL())
	case <-time.After(3 * doomed.TTL()):
		t.Fatalf("Lost not closed %v after the store stopped (TTL %v)", 3*doomed.TTL(), doomed.TTL())
	}
}
