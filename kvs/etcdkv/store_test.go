package etcdkv_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

func startEmbedded(t *testing.T, dir string) (*embedded.Server, *etcdkv.Store) {
	t.Helper()
	e, err := embedded.Start(embedded.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s, err := etcdkv.Dial(context.Background(), []string{e.Endpoint()})
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	return e, s
}

func TestEmbeddedStore(t *testing.T) {
	e, s := startEmbedded(t, t.TempDir())
	defer e.Close()
	defer s.Close()
	exercise(t, s)
}

func TestExternalStore(t *testing.T) {
	ep := etcdtest.StartExternal(t)
	kv, err := kvs.Open(context.Background(), "etcd://"+ep)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	exercise(t, kv)
}

func exercise(t *testing.T, raw kvs.KV) {
	ctx := context.Background()
	kv := kvs.Namespace(raw, "test", "a/b") // "/" in a segment must stay inside it
	other := kvs.Namespace(raw, "test", "a")
	if _, err := kv.Put(ctx, "k1", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	v, ok, _, err := kv.Get(ctx, "k1")
	if err != nil || !ok || string(v) != "v1" {
		t.Fatalf("Get = %q %v %v", v, ok, err)
	}
	if _, ok, _, _ := other.Get(ctx, "b/k1"); ok {
		t.Fatal("namespace a/b leaked into namespace a")
	}
	if _, ok, _, _ := kv.Get(ctx, "missing"); ok {
		t.Fatal("missing key found")
	}
	// Update is atomic under contention.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := kv.Update(ctx, "ctr", func(old []byte, found bool) ([]byte, error) {
				n := 0
				if found {
					n, _ = strconv.Atoi(string(old))
				}
				return []byte(strconv.Itoa(n + 1)), nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if v, _, _, _ := kv.Get(ctx, "ctr"); string(v) != "8" {
		t.Fatalf("counter = %q, want 8", v)
	}
	es, _, err := kv.List(ctx, "")
	if err != nil || len(es) != 2 || es[0].Key != "ctr" || es[1].Key != "k1" {
		t.Fatalf("List = %+v %v", es, err)
	}
	// WaitCreate wakes on a later Put.
	go func() {
		time.Sleep(50 * time.Millisecond)
		kv.Put(ctx, "later", []byte("x"))
	}()
	v, err = kvs.WaitCreate(ctx, kv, "later", 5*time.Second)
	if err != nil || string(v) != "x" {
		t.Fatalf("WaitCreate = %q %v", v, err)
	}
	// A wait that cannot be satisfied ends with ErrTimeout, not a hang.
	start := time.Now()
	_, err = kvs.WaitCreate(ctx, kv, "never", 200*time.Millisecond)
	if !errors.Is(err, kvs.ErrTimeout) {
		t.Fatalf("WaitCreate(never) = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	if err := kv.Delete(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _, _ := kv.Get(ctx, "k1"); ok {
		t.Fatal("deleted key still present")
	}
	// Watch sees puts and deletes with namespace-relative keys.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := kv.Watch(wctx, "w/", 0)
	if err != nil {
		t.Fatal(err)
	}
	kv.Put(ctx, "w/1", []byte("a"))
	kv.Delete(ctx, "w/1")
	for i, want := range []bool{false, true} {
		select {
		case ev := <-ch:
			if ev.Key != "w/1" || ev.Deleted != want {
				t.Fatalf("event %d = %+v", i, ev)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("watch event not delivered")
		}
	}
}

func TestEmbeddedSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	e, s := startEmbedded(t, dir)
	if _, err := s.Put(context.Background(), "/persist", []byte("yes")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	e.Close()
	e, s = startEmbedded(t, dir)
	defer e.Close()
	defer s.Close()
	v, ok, _, err := s.Get(context.Background(), "/persist")
	if err != nil || !ok || string(v) != "yes" {
		t.Fatalf("after restart Get = %q %v %v", v, ok, err)
	}
}

func TestOpenUnknownScheme(t *testing.T) {
	if _, err := kvs.Open(context.Background(), "flux://x"); err == nil {
		t.Fatal("unknown scheme accepted")
	}
}
