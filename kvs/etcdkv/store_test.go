package etcdkv_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
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
	exercise(t, s, e.Endpoint())
}

func TestExternalStore(t *testing.T) {
	ep := etcdtest.StartExternal(t)
	kv, err := kvs.Open(context.Background(), "etcd://"+ep)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	exercise(t, kv, ep)
}

// watchers reads the number of watchers of the etcd at ep from its /metrics.
func watchers(t *testing.T, ep string) int {
	t.Helper()
	r, err := http.Get("http://" + ep + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "etcd_debugging_mvcc_watcher_total "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("watcher_total %q: %v", v, err)
			}
			return int(n)
		}
	}
	t.Fatal("etcd's /metrics has no etcd_debugging_mvcc_watcher_total")
	return 0
}

// awaitWatchers waits until the etcd at ep has at least n watchers: the event that
// says a waiter is watching.
func awaitWatchers(t *testing.T, ep string, n int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(30 * time.Second)
	for watchers(t, ep) < n {
		if time.Now().After(deadline) {
			t.Fatalf("etcd never had %d watchers", n)
		}
		<-tick.C
	}
}

func exercise(t *testing.T, raw kvs.KV, ep string) {
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
	// WaitCreate wakes on a Put made once it watches.
	base := watchers(t, ep)
	type got struct {
		v   []byte
		err error
	}
	woke := make(chan got, 1)
	go func() {
		v, err := kvs.WaitCreate(ctx, kv, "later", 30*time.Second)
		woke <- got{v, err}
	}()
	awaitWatchers(t, ep, base+1)
	if _, err := kv.Put(ctx, "later", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if g := <-woke; g.err != nil || string(g.v) != "x" {
		t.Fatalf("WaitCreate = %q %v", g.v, g.err)
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
