package dyad_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
)

// TestConsumeIsOneRequest checks that a consume that must fetch costs one request to the
// local agent, which locates the record (its cache, or the KVS where it waits) and stages
// the file, and that the locator's statistics still say which level found it. The first
// consume opens the client's connection to the agent; the next one reuses it.
func TestConsumeIsOneRequest(t *testing.T) {
	prod, cons := pair(t)
	v1 := randBytes(256<<10, 21)
	produce(t, prod, "one.bin", v1)
	conns := func() int64 { return cons.agent.Counters()["conns_accepted"] }
	reqs := func() int64 { return cons.agent.Counters()["local_requests"] }

	before, reqsBefore := conns(), reqs()
	consumeCheck(t, cons, "one.bin", v1)
	if got := conns() - before; got != 1 {
		t.Fatalf("a consume opened %d connections to the agent, want 1", got)
	}
	if got := reqs() - reqsBefore; got != 1 {
		t.Fatalf("a consume sent %d requests to the agent, want 1", got)
	}
	st := cons.client.LocatorStats()
	if st[dyad.LevelLocal].Misses != 1 || st[dyad.LevelAgent].Hits+st[dyad.LevelKVS].Hits != 1 {
		t.Fatalf("locator stats after one consume = %+v", st)
	}

	// A newer version than any published: the one request waits in the agent's KVS
	// wait, and stages the version once it is produced.
	before, reqsBefore = conns(), reqs()
	waits := cons.agent.Counters()["kvs_waits"]
	v2 := randBytes(300<<10, 22)
	done := make(chan error, 1)
	go func() {
		_, err := cons.client.ConsumeVersion(context.Background(), "one.bin", 2)
		done <- err
	}()
	// The agent's own counters, read in process: asking over its socket would count.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for limit := time.Now().Add(60 * time.Second); cons.agent.Counters()["kvs_waits"] <= waits; <-tick.C {
		if time.Now().After(limit) {
			t.Fatal("the consume of version 2 never reached the agent's KVS wait")
		}
	}
	produce(t, prod, "one.bin", v2)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the consume waiting for version 2 did not return after it was produced")
	}
	got, err := os.ReadFile(cons.dir + "/one.bin")
	if err != nil || string(got) != string(v2) {
		t.Fatalf("after the wait the staged copy has %d bytes (%v), want version 2's %d", len(got), err, len(v2))
	}
	if got := conns() - before; got != 0 {
		t.Fatalf("a consume that waited opened %d connections to the agent, want 0 (the first consume's, kept)", got)
	}
	if got := reqs() - reqsBefore; got != 1 {
		t.Fatalf("a consume that waited sent %d requests to the agent, want 1", got)
	}
	st = cons.client.LocatorStats()
	if st[dyad.LevelKVS].Hits < 1 || st[dyad.LevelAgent].Hits+st[dyad.LevelKVS].Hits != 2 {
		t.Fatalf("locator stats after the wait = %+v, want the KVS to have found version 2", st)
	}
	noTemps(t, cons.dir)
}
