package dyad_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

// TestOwnerGoneAndBack runs the producer's agent as a process against an external etcd
// and SIGKILLs it in the middle of a fetch. The consumer is told that the owner agent is
// gone within the lease TTL (and at once for a file asked for afterwards), with no
// partial file. Restarted on the same data at a new address, the agent re-publishes
// the files it still holds unchanged, and the consumer gets their exact bytes; a file
// changed meanwhile is not re-published.
func TestOwnerGoneAndBack(t *testing.T) {
	etcd := etcdtest.StartServer(t)
	const ttl = 2 * time.Second
	dir := filepath.Join(t.TempDir(), "prod")
	o := agent.Options{ProducerDir: dir, Token: testToken, Socket: sockPath(t), KVS: "etcd://" + etcd.Endpoint,
		LeaseTTL: ttl, ChunkSize: 256 << 10, ChunkDelay: 50 * time.Millisecond}
	owner := startSubAgent(t, o)
	cons := startNode(t, "etcd://"+etcd.Endpoint, nil)
	pc := newClient(t, dir, o.Socket, nil)
	files := map[string][]byte{"big.bin": randBytes(8<<20, 40), "small.bin": randBytes(70<<10, 41), "changed.bin": randBytes(1000, 42)}
	os.MkdirAll(dir, 0o755)
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		if _, err := pc.Produce(name); err != nil {
			t.Fatal(err)
		}
	}

	done := make(chan error, 1)
	go func() { _, err := cons.client.Consume("big.bin"); done <- err }()
	// Kill once the stream is under way: the temporary file has appeared and grown.
	awaitDir(t, cons.dir, time.Minute, "the fetch of big.bin started", func() bool { return tempGrown(cons.dir, "big.bin", 1<<20) })
	owner.cmd.Process.Signal(os.Kill)
	owner.cmd.Wait()
	killed := time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the consumer hung after the owner agent was killed")
	}
	took := time.Since(killed)
	wantGone := "owner agent " + owner.addr + " on node "
	if err == nil || !strings.Contains(err.Error(), wantGone) || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("consume during the kill: %v; want %q ... \"is gone\"", err, wantGone)
	}
	t.Logf("owner killed mid-fetch: told after %v (lease TTL %v): %v", took.Round(time.Millisecond), ttl, err)
	if took > ttl+5*time.Second {
		t.Errorf("told the owner was gone after %v, want within the lease TTL %v (and the store's expiry sweep)", took, ttl)
	}
	if _, err := os.Stat(filepath.Join(cons.dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("partial file left at the destination: %v", err)
	}
	noTemps(t, cons.dir)
	// A file asked for after the owner's lease ended: told at once, without a fetch.
	start := time.Now()
	if _, err := cons.client.Consume("small.bin"); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("consume after the owner died: %v, want \"is gone\"", err)
	}
	t.Logf("consume of a file of the dead owner: told in %v", time.Since(start).Round(time.Millisecond))

	// Changed while the agent was down: its content no longer matches the signed record.
	os.WriteFile(filepath.Join(dir, "changed.bin"), []byte("other bytes"), 0o644)
	o.ChunkDelay = 0
	back := startSubAgent(t, o)
	if back.addr == owner.addr {
		t.Fatalf("the restarted agent has the old address %s; the test wants a new one", back.addr)
	}
	for _, name := range []string{"big.bin", "small.bin"} {
		consumeCheck(t, cons, name, files[name])
	}
	if _, err := cons.client.Consume("changed.bin"); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("consume of a file changed while its owner was down: %v, want \"is gone\"", err)
	}
	ms, err := cons.client.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, m := range ms {
		owners[m.Path] = m.Owner
	}
	want := map[string]string{"big.bin": back.addr, "small.bin": back.addr, "changed.bin": owner.addr}
	for p, w := range want {
		if owners[p] != w {
			t.Errorf("record of %s names owner %s, want %s", p, owners[p], w)
		}
	}
	noTemps(t, cons.dir)
}

// TestEtcdRestartUnderAgents stops the external etcd under two running agents for longer
// than their lease TTL: listing and producing fail within the client's timeout with an
// error naming the etcd endpoint. Once etcd is back, the agents re-register by
// themselves, and a file is produced and staged without restarting either agent.
func TestEtcdRestartUnderAgents(t *testing.T) {
	etcd := etcdtest.StartServer(t)
	url := "etcd://" + etcd.Endpoint
	opts := func(o *agent.Options) { o.LeaseTTL, o.KVSTimeout = 2*time.Second, 3*time.Second }
	prod := startNode(t, url, opts)
	cons := startNode(t, url, opts)
	before := randBytes(100<<10, 43)
	produce(t, prod, "before.bin", before)
	consumeCheck(t, cons, "before.bin", before)

	etcd.Stop()
	start := time.Now()
	_, err := cons.client.List(context.Background(), "")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "etcd at "+etcd.Endpoint+" is unreachable") {
		t.Fatalf("listing with etcd down: %v, want it to name etcd at %s as unreachable", err, etcd.Endpoint)
	}
	t.Logf("listing with etcd down: told in %v: %v", took.Round(time.Millisecond), err)
	os.WriteFile(filepath.Join(prod.dir, "during.bin"), []byte("x"), 0o644)
	if _, err := prod.client.Produce("during.bin"); err == nil || !strings.Contains(err.Error(), "etcd at "+etcd.Endpoint+" is unreachable") {
		t.Fatalf("producing with etcd down: %v, want it to name etcd at %s as unreachable", err, etcd.Endpoint)
	}
	// Down for longer than the lease TTL: both agents notice they lost their lease (the
	// counter is bumped before the line is logged).
	for _, n := range []*node{prod, cons} {
		n.log.awaitLine(t, "lost the liveness lease")
		if got := n.agent.Counters()["leases_lost"]; got < 1 {
			t.Fatalf("leases_lost %d after the agent logged the loss", got)
		}
	}

	etcd.Start()
	for _, n := range []*node{prod, cons} {
		n.log.awaitLine(t, "re-registered with the KVS")
		if got := n.agent.Counters()["registrations"]; got < 2 {
			t.Fatalf("registrations %d after the agent logged its re-registration", got)
		}
	}
	after := randBytes(300<<10, 44)
	produce(t, prod, "after.bin", after)
	consumeCheck(t, cons, "after.bin", after)
	noTemps(t, cons.dir)
}

// TestStatDoesNotWait: Stat of a path nobody produced answers at once that it does not
// exist, instead of waiting in the KVS.
func TestStatDoesNotWait(t *testing.T) {
	n := startNode(t, "", nil)
	start := time.Now()
	_, _, err := n.client.Stat(context.Background(), "nobody/made/this.bin")
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Stat of an unproduced path: %v, want os.ErrNotExist", err)
	}
	// The client's socket deadline for a KVS read is 10 s; an answer well before it
	// shows the agent did not wait.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Stat took %v", d)
	}
}
