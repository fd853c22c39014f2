package dyad_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/dyad/ofd"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

// TestCrashedStagingSwept SIGKILLs a consumer's agent in the middle of a staging, which
// leaves the staging's temporary file behind (its record travels on it, as an extended
// attribute: there is no sidecar's). The agent started next on the same directory stages
// the file again, exactly, and removes the crashed staging's file.
func TestCrashedStagingSwept(t *testing.T) {
	etcd := etcdtest.StartServer(t)
	kvs := "etcd://" + etcd.Endpoint
	// Served slowly (8 MiB in 1.6 s), so that the kill lands in the middle of the staging.
	prod := startNode(t, kvs, func(o *agent.Options) { o.ChunkSize = 256 << 10; o.ChunkDelay = 50 * time.Millisecond })
	data := randBytes(8<<20, 61)
	produce(t, prod, "big.bin", data)

	dir := filepath.Join(t.TempDir(), "cons")
	o := agent.Options{ProducerDir: dir, Token: testToken, Socket: sockPath(t), KVS: kvs}
	crashing := startSubAgent(t, o)
	failed := make(chan error, 1)
	go func() { _, err := newClient(t, dir, o.Socket, nil).Consume("big.bin"); failed <- err }()
	awaitDir(t, dir, time.Minute, "the staging of big.bin started", func() bool { return tempGrown(dir, "big.bin", 1<<20) })
	// While the staging lives, its temporary file is locked: no sweep can take it.
	live := tempsIn(dir)
	if len(live) != 1 {
		t.Fatalf("during the staging: temporary files %v, want the file's alone", live)
	}
	for _, p := range live {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ofd.TryLock(f, true)
		f.Close()
		if got || err != nil {
			t.Fatalf("a live staging's temporary file %s: lock taken %v (%v), want held by the staging", p, got, err)
		}
	}
	crashing.kill()
	if err := <-failed; err == nil {
		t.Fatal("the consume succeeded though its agent was killed mid-staging")
	}
	if left := tempsIn(dir); !slices.Equal(left, live) {
		t.Fatalf("after the kill: temporary files %v, want those of the staging cut short, %v", left, live)
	}

	next := startNode(t, kvs, func(o2 *agent.Options) { o2.ProducerDir = dir })
	c := newClient(t, dir, next.socket, nil)
	got, err := c.Consume("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(got); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("staged %s: %d bytes (%v), differ from the %d produced", got, len(b), err, len(data))
	}
	awaitCounter(t, c, "stale_temps_removed", 1)
	noTemps(t, dir)
}
