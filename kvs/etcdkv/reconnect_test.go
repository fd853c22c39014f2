package etcdkv_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

// TestReconnectAfterOutage: a member that failed many reconnection attempts is used
// again soon after it returns. While etcd is down, a listener on its port refuses the
// client's handshakes; after eight refused attempts, gRPC's default backoff would wait
// about 40 s before the next one (eight take a minute), so the read after etcd's return would time out.
func TestReconnectAfterOutage(t *testing.T) {
	srv := etcdtest.StartServer(t)
	s, err := etcdkv.Dial(context.Background(), []string{srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv.Stop()
	ln, err := net.Listen("tcp", srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var attempts atomic.Int32
	refused := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			if attempts.Add(1) == 8 {
				close(refused)
			}
		}
	}()
	select {
	case <-refused:
	case <-time.After(30 * time.Second):
		ln.Close()
		t.Fatalf("the client tried to reconnect %d times in 30 s; want 8 (its backoff grows too fast)", attempts.Load())
	}
	ln.Close()
	srv.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if _, _, _, err := s.Get(ctx, "/reconnect"); err != nil {
		t.Fatalf("read %v after etcd came back: %v", time.Since(start).Round(time.Millisecond), err)
	}
	t.Logf("read %v after etcd came back", time.Since(start).Round(time.Millisecond))
}
