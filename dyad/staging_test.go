package dyad_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/dyad/peerauth"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

func TestProduceThenConsume(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(3<<20+17, 1)
	m := produce(t, prod, "run1/frame0.bin", data)
	if m.Version != 1 || m.Size != int64(len(data)) || m.Key != dyad.PathKey("run1/frame0.bin", 3, 1024) {
		t.Fatalf("metadata = %+v", m)
	}
	consumeCheck(t, cons, "run1/frame0.bin", data)
	// The second consume finds the complete local copy: a local-level hit, no new fetch.
	before := prod.agent.Counters()["fetches_served"]
	f, err := cons.client.Open("run1/frame0.bin")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := prod.agent.Counters()["fetches_served"]; got != before {
		t.Fatalf("second consume fetched again (%d -> %d)", before, got)
	}
	st := cons.client.LocatorStats()
	if st[dyad.LevelLocal].Hits != 1 || st[dyad.LevelKVS].Hits+st[dyad.LevelAgent].Hits != 1 {
		t.Fatalf("locator stats = %+v", st)
	}
	ls, err := cons.client.List(context.Background(), "")
	if err != nil || len(ls) != 1 || ls[0].Path != "run1/frame0.bin" {
		t.Fatalf("List = %+v, %v", ls, err)
	}
	noTemps(t, cons.dir)
}

func TestConsumeBlocksUntilProduced(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(1<<20, 2)
	done := make(chan error, 1)
	go func() {
		_, err := cons.client.Consume("late.bin")
		done <- err
	}()
	// The consumer is waiting in its agent's KVS wait, still without an answer.
	waitCounter(t, cons, "kvs_waits", 1)
	select {
	case err := <-done:
		t.Fatalf("consume returned before the file was produced: %v", err)
	default:
	}
	produce(t, prod, "late.bin", data)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("consumer did not wake after the file was produced")
	}
	consumeCheck(t, cons, "late.bin", data)
}

func TestConsumeTimesOut(t *testing.T) {
	_, cons := pair(t)
	c := newClient(t, cons.dir, cons.socket, func(c *dyad.Config) { c.Timeout = 300 * time.Millisecond })
	start := time.Now()
	_, err := c.Consume("never.bin")
	// The error names the path (never the hashed key) and the timeout.
	if want := "dyad: never.bin not produced within 300ms"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	if _, err := os.Stat(filepath.Join(cons.dir, "never.bin")); !os.IsNotExist(err) {
		t.Fatal("a file appeared for a consume that failed")
	}
}

func TestConcurrentConsumersFetchOnce(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(4<<20, 3)
	produce(t, prod, "shared.bin", data)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each consumer has its own client, as separate ranks would.
			c := newClient(t, cons.dir, cons.socket, nil)
			if _, err := c.Consume("shared.bin"); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := prod.agent.Counters()["fetches_served"]; n != 1 {
		t.Fatalf("16 consumers caused %d fetches, want 1", n)
	}
	consumeCheck(t, cons, "shared.bin", data)
}

func TestReproduceServesNewVersion(t *testing.T) {
	prod, cons := pair(t)
	v1, v2 := randBytes(1<<20, 4), randBytes(2<<20, 5)
	produce(t, prod, "x/state.bin", v1)
	consumeCheck(t, cons, "x/state.bin", v1)
	m := produce(t, prod, "x/state.bin", v2)
	if m.Version != 2 {
		t.Fatalf("re-produce version = %d, want 2", m.Version)
	}
	p, err := cons.client.ConsumeVersion(context.Background(), "x/state.bin", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != string(v2) {
		t.Fatal("ConsumeVersion(2) did not serve the new bytes")
	}
	// A plain Consume by a second consumer node sees v2 too once its agent has heard of it.
	other := startNode(t, prod.agent.KVSEndpoint(), nil)
	consumeCheck(t, other, "x/state.bin", v2)
}

// TestReproduceInvalidatesLocalCopy: a staged copy carries its record in an extended
// attribute (no sidecar file); the consumer's agent watches the KVS and, seeing v2,
// removes the record that marks its copy of v1 as complete, so plain Consume fetches v2.
func TestReproduceInvalidatesLocalCopy(t *testing.T) {
	prod, cons := pair(t)
	v1, v2 := randBytes(1<<20, 6), randBytes(1<<20, 7)
	produce(t, prod, "y.bin", v1)
	consumeCheck(t, cons, "y.bin", v1)
	dest, side := filepath.Join(cons.dir, "y.bin"), filepath.Join(cons.dir, ".couplet", "meta", "y.bin.meta")
	if m, err := dyad.ReadStaged(dest, side); err != nil || m.Version != 1 || !dyad.HasStagedAttr(dest) {
		t.Fatalf("the staged copy's record: %+v, %v (in its attribute: %v), want version 1 in the attribute", m, err, dyad.HasStagedAttr(dest))
	}
	if _, err := os.Stat(side); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a sidecar beside a copy that carries its record: %v", err)
	}
	produce(t, prod, "y.bin", v2)
	awaitDir(t, cons.dir, time.Minute, "the stale copy's record removed", func() bool { return !dyad.HasStagedAttr(dest) })
	if _, ok, err := cons.client.LookupLevel(context.Background(), dyad.LevelLocal, "y.bin", 0); ok || err != nil {
		t.Fatalf("local lookup of the stale copy: found %v (%v), want not found", ok, err)
	}
	consumeCheck(t, cons, "y.bin", v2)
}

// TestSidecarWithoutAttributes stages into a ramfs, a real file system that keeps no
// extended attributes (as tmpfs before Linux 6.6): the copy's record goes to its sidecar
// after the rename, the local lookup finds the copy through it, and a newer version
// removes it.
func TestSidecarWithoutAttributes(t *testing.T) {
	ram := filepath.Join(t.TempDir(), "ram")
	os.MkdirAll(ram, 0o755)
	if out, err := exec.Command("mount", "-t", "ramfs", "ramfs", ram).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a ramfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", ram).Run() })
	prod := startNode(t, "", nil)
	cons := startNode(t, prod.agent.KVSEndpoint(), func(o *agent.Options) {
		o.ProducerDir = filepath.Join(ram, "managed")
	})
	cons.dir = filepath.Join(ram, "managed")
	cons.client = newClient(t, cons.dir, cons.socket, nil)
	v1, v2 := randBytes(300<<10, 8), randBytes(200<<10, 9)
	produce(t, prod, "d/z.bin", v1)
	consumeCheck(t, cons, "d/z.bin", v1)
	dest, side := filepath.Join(cons.dir, "d", "z.bin"), filepath.Join(cons.dir, ".couplet", "meta", "d", "z.bin.meta")
	if dyad.HasStagedAttr(dest) {
		t.Fatal("ramfs kept an extended attribute: this test needs a file system without them")
	}
	if m, err := dyad.ReadStaged(dest, side); err != nil || m.Version != 1 || m.Size != int64(len(v1)) {
		t.Fatalf("the staged copy's record from its sidecar: %+v, %v; want version 1 of %d bytes", m, err, len(v1))
	}
	if m, ok, err := cons.client.LookupLevel(context.Background(), dyad.LevelLocal, "d/z.bin", 1); !ok || err != nil || m.Version != 1 {
		t.Fatalf("local lookup: %+v, found %v (%v); want version 1", m, ok, err)
	}
	noTemps(t, cons.dir)
	produce(t, prod, "d/z.bin", v2)
	awaitDir(t, filepath.Dir(side), time.Minute, "the stale copy's sidecar removed", func() bool {
		_, err := os.Stat(side)
		return errors.Is(err, os.ErrNotExist)
	})
	consumeCheck(t, cons, "d/z.bin", v2)
	if m, err := dyad.ReadStaged(dest, side); err != nil || m.Version != 2 {
		t.Fatalf("the new copy's record: %+v, %v; want version 2", m, err)
	}
}

func TestSharedStorageOnlySynchronises(t *testing.T) {
	prod := startNode(t, "", nil)
	c := newClient(t, prod.dir, prod.socket, func(c *dyad.Config) { c.SharedStorage = true })
	data := randBytes(1000, 8)
	produce(t, prod, "s.bin", data)
	p, err := c.Consume("s.bin")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != string(data) {
		t.Fatal("shared storage consume returned wrong bytes")
	}
	if n := prod.agent.Counters()["fetches_served"]; n != 0 {
		t.Fatalf("shared storage transferred (%d fetches)", n)
	}
}

// rawFetch authenticates with token (a wrong one when empty), sends one fetch to an
// agent and returns the first reply; a refused authentication comes back as an OpError.
func rawFetch(t *testing.T, addr, token, path string) *wire.Msg {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if token == "" {
		token = "not-the-token"
	}
	if err := peerauth.Client(c, []byte(token), 5*time.Second); err != nil {
		return &wire.Msg{Op: wire.OpError, Err: err.Error()}
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := wire.Write(c, &wire.Msg{Op: wire.OpFetch, Path: path}); err != nil {
		t.Fatal(err)
	}
	m, err := wire.Read(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPathConfinement(t *testing.T) {
	prod := startNode(t, "", nil)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o644)
	produce(t, prod, "ok.bin", []byte("fine"))
	os.MkdirAll(filepath.Join(prod.dir, "sub"), 0o755)
	if err := os.Symlink(outside, filepath.Join(prod.dir, "sub", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../"+filepath.Base(filepath.Dir(outside)), filepath.Join(prod.dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	bad := []string{"../secret", "sub/../../secret", "/etc/passwd", "sub/link", "dirlink/secret", ".couplet/agent/etcd/member/snap/db", ""}
	for _, p := range bad {
		m := rawFetch(t, prod.agent.Addr(), testToken, p)
		if m.Op != wire.OpError || !strings.Contains(m.Err, "rejected") {
			t.Errorf("fetch %q = %v %q, want rejected", p, m.Op, m.Err)
		}
	}
	if n := prod.agent.Counters()["rejected"]; n != int64(len(bad)) {
		t.Errorf("rejected counter = %d, want %d", n, len(bad))
	}
	logs := prod.log.String()
	for _, p := range bad[:6] {
		if !strings.Contains(logs, "level=ERROR msg=\"rejected fetch\" path="+p+" ") {
			t.Errorf("rejection of %q not logged; log:\n%s", p, logs)
		}
	}
	if m := rawFetch(t, prod.agent.Addr(), testToken, "ok.bin"); m.Op != wire.OpHeader || m.Meta.Size != 4 {
		t.Errorf("legitimate fetch = %+v", m)
	}
	// The client refuses to produce outside its managed directory, too.
	if _, err := prod.client.Produce("../escape"); err == nil {
		t.Error("Produce of ../escape accepted")
	}
}

func TestTokenRequired(t *testing.T) {
	if _, err := agent.Start(agent.Options{ProducerDir: t.TempDir(), Listen: "0.0.0.0:0", Socket: sockPath(t)}); err == nil ||
		!strings.Contains(err.Error(), "requires a token") {
		t.Fatalf("non-loopback without token: err = %v", err)
	}
	tok := func(s string) func(*agent.Options) { return func(o *agent.Options) { o.Token = s } }
	prod := startNode(t, "", tok("s3cret-cluster-token"))
	data := randBytes(1<<16, 9)
	produce(t, prod, "t.bin", data)
	for _, bad := range []string{"", "wrong"} {
		if m := rawFetch(t, prod.agent.Addr(), bad, "t.bin"); m.Op != wire.OpError || !strings.Contains(m.Err, "unauthorized") {
			t.Errorf("token %q: reply %v %q, want unauthorized", bad, m.Op, m.Err)
		}
	}
	// An agent with another token cannot even verify the records, so it never asks.
	wrong := startNode(t, prod.agent.KVSEndpoint(), tok("guessed-cluster-token"))
	if _, err := wrong.client.Consume("t.bin"); err == nil || !strings.Contains(err.Error(), "not signed with the cluster key") {
		t.Errorf("consumer with wrong token: err = %v", err)
	}
	noTemps(t, wrong.dir)
	if n := prod.agent.Counters()["unauthorized"]; n != 2 {
		t.Errorf("unauthorized counter = %d, want 2", n)
	}
	if !strings.Contains(prod.log.String(), "did not prove it holds the cluster token") {
		t.Error("refusal not logged")
	}
	good := startNode(t, prod.agent.KVSEndpoint(), tok("s3cret-cluster-token"))
	consumeCheck(t, good, "t.bin", data)
}

func TestKillProducerAgentMidTransfer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	listen, ec, ep := etcdtest.StableAddr(t), etcdtest.StableAddr(t), etcdtest.StableAddr(t)
	o := agent.Options{ProducerDir: dir, Token: testToken, Listen: listen, Socket: sockPath(t), EtcdClient: ec, EtcdPeer: ep,
		ChunkSize: 256 << 10, ChunkDelay: 25 * time.Millisecond}
	sub := startSubAgent(t, o)
	cons := startNode(t, sub.kvs, nil)
	pc := newClient(t, dir, o.Socket, nil)
	data := randBytes(16<<20, 10) // 64 chunks * 25 ms: about 1.6 s of streaming
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "big.bin"), data, 0o644)
	if _, err := pc.Produce("big.bin"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := cons.client.Consume("big.bin"); done <- err }()
	// Kill once the stream is under way: a temporary file has appeared and grown.
	awaitDir(t, cons.dir, time.Minute, "the transfer of big.bin started", func() bool { return tempGrown(cons.dir, "big.bin", 1<<20) })
	sub.cmd.Process.Signal(os.Kill)
	sub.cmd.Wait()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("consume succeeded although the producer's agent was killed mid-transfer")
		}
		t.Logf("consume failed as expected: %v", err)
	case <-time.After(40 * time.Second):
		t.Fatal("consumer hung after the producer's agent died")
	}
	if _, err := os.Stat(filepath.Join(cons.dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("partial file left at the destination: %v", err)
	}
	noTemps(t, cons.dir)
	// Restart on the same ports and data directory: the metadata survived, and a retry works.
	o.ChunkDelay = 0
	startSubAgent(t, o)
	consumeCheck(t, cons, "big.bin", data)
}

func TestExternalEtcd(t *testing.T) {
	ep := etcdtest.StartExternal(t)
	prod := startNode(t, "etcd://"+ep, nil)
	cons := startNode(t, "etcd://"+ep, nil)
	data := randBytes(2<<20, 11)
	done := make(chan error, 1)
	go func() { _, err := cons.client.Consume("ext/a.bin"); done <- err }()
	// Produce once the consumer blocks in the KVS wait.
	awaitCounter(t, cons.client, "kvs_waits", 1)
	produce(t, prod, "ext/a.bin", data)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	consumeCheck(t, cons, "ext/a.bin", data)
	produce(t, prod, "ext/a.bin", data[:1000])
	if _, err := cons.client.ConsumeVersion(context.Background(), "ext/a.bin", 2); err != nil {
		t.Fatal(err)
	}
}
