package dyad_test

import (
	"io"
	"net"
	"testing"

	"github.com/couplet-hpc/couplet/dyad/agent"
)

// TestPeerConnectionReuse: fetches from one owner reuse one authenticated connection
// (the owner authenticates it once), another consumer agent authenticates its own, and a
// pooled connection that the owner dropped meanwhile (evicted to make room under a flood)
// costs nothing but a new dial and handshake: the fetch succeeds.
func TestPeerConnectionReuse(t *testing.T) {
	const maxConns = 4
	prod := startNode(t, "", func(o *agent.Options) { o.MaxConns = maxConns })
	cons := startNode(t, prod.agent.KVSEndpoint(), nil)
	files := map[string][]byte{}
	for i, rel := range []string{"a.bin", "b.bin", "c.bin", "d.bin", "e.bin"} {
		files[rel] = randBytes(100<<10+i, uint64(i+1))
		produce(t, prod, rel, files[rel])
	}
	auths := func() int64 { return prod.agent.Counters()["peer_auths"] }
	for i, rel := range []string{"a.bin", "b.bin", "c.bin"} {
		consumeCheck(t, cons, rel, files[rel])
		if got := auths(); got != 1 {
			t.Fatalf("after %d fetches from one consumer agent the owner authenticated %d connections, want 1", i+1, got)
		}
	}
	other := startNode(t, prod.agent.KVSEndpoint(), nil)
	consumeCheck(t, other, "a.bin", files["a.bin"])
	if got := auths(); got != 2 {
		t.Fatalf("a second consumer agent: the owner authenticated %d connections, want 2", got)
	}

	// Fill the owner's gate with idle connections: the oldest evictable ones, the two
	// pooled connections, are closed to make room (each newcomer is admitted, then
	// challenged, before the next dial).
	for i := 0; i < maxConns; i++ {
		c, err := net.Dial("tcp", prod.agent.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.ReadFull(c, make([]byte, 5+32)); err != nil {
			t.Fatalf("idle connection %d got no challenge: %v", i, err)
		}
	}
	if got := prod.agent.Counters()["conns_evicted"]; got < 2 {
		t.Fatalf("conns_evicted = %d after filling the gate, want >= 2", got)
	}
	consumeCheck(t, cons, "d.bin", files["d.bin"])
	if got := auths(); got != 3 {
		t.Fatalf("after the pooled connection was dropped the owner authenticated %d connections, want 3", got)
	}
	consumeCheck(t, cons, "e.bin", files["e.bin"])
	if got := auths(); got != 3 {
		t.Fatalf("the new connection was not reused: %d authentications, want 3", got)
	}
}

// TestAgentConnectionKeptAcrossRestart checks that a client's kept connection to its
// agent does not outlive the agent: after the agent restarts on the same socket, the next
// consume fails on the old connection before any reply and goes again on a new one,
// which the new agent counts as one connection carrying one request.
func TestAgentConnectionKeptAcrossRestart(t *testing.T) {
	prod, cons := pair(t)
	v1, v2 := randBytes(64<<10, 31), randBytes(80<<10, 32)
	produce(t, prod, "a.bin", v1)
	produce(t, prod, "b.bin", v2)
	consumeCheck(t, cons, "a.bin", v1) // the client now keeps a connection to the agent

	if err := cons.agent.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := agent.Start(agent.Options{ProducerDir: cons.dir, Socket: cons.socket, KVS: prod.agent.KVSEndpoint(),
		LogWriter: cons.log, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	consumeCheck(t, cons, "b.bin", v2)
	c := again.Counters()
	if c["conns_accepted"] != 1 || c["local_requests"] != 1 || c["stages"] != 1 {
		t.Fatalf("the restarted agent counted %d connections, %d requests and %d stagings, want 1, 1 and 1",
			c["conns_accepted"], c["local_requests"], c["stages"])
	}
}
