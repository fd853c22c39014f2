package dyad_test

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/kvs"
	_ "github.com/couplet-hpc/couplet/kvs/etcdkv"
)

// TestInjectedRecordRefused writes records straight into etcd, as a party that can reach
// etcd but lacks the cluster key would: each names an owner serving the attacker's bytes
// with a matching CRC. The consumer refuses every one before contacting the owner, and
// no file is left.
func TestInjectedRecordRefused(t *testing.T) {
	prod, cons := pair(t)
	produce(t, prod, "legit.bin", randBytes(4096, 51))
	payload := []byte("ATTACKER-CONTROLLED-BYTES")
	var dialed atomic.Int64
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			dialed.Add(1)
			c.Close()
		}
	}()
	sum := contentHash(make([]byte, 16), payload)
	fake := func(rel string) *wire.Meta {
		return &wire.Meta{Key: cons.client.Key(rel), Path: rel, Owner: l.Addr().String(), Node: "evil",
			Size: int64(len(payload)), Version: 1, Checksum: crc32.Checksum(payload, dyad.Castagnoli), Hash: sum}
	}
	cases := []struct {
		name string
		rec  func(rel string) *wire.Meta
	}{
		{"unsigned", fake},
		{"garbage signature", func(rel string) *wire.Meta { m := fake(rel); m.Sig = make([]byte, 32); return m }},
		{"signed with another key", func(rel string) *wire.Meta { m := fake(rel); agent.SignRecord("not-the-cluster-token", m); return m }},
		{"a real record moved to another owner", func(rel string) *wire.Meta {
			m := rawRecord(t, prod, "legit.bin")
			m.Key, m.Path, m.Owner = cons.client.Key(rel), rel, l.Addr().String()
			return m
		}},
	}
	// The writer reaches etcd (with the cluster directory's certificate, as an etcd admin
	// or a member of an open external etcd would) but does not hold the cluster token.
	store, err := kvs.Open(context.Background(), prod.agent.KVSEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ns := kvs.Namespace(store, "dyad", "test")
	for i, c := range cases {
		rel := "inj" + string(rune('a'+i)) + ".bin"
		m := c.rec(rel)
		b, _ := wire.EncodeMeta(m)
		if _, err := ns.Put(context.Background(), m.Key, b); err != nil {
			t.Fatal(err)
		}
		_, err := cons.client.Consume(rel)
		if err == nil || !strings.Contains(err.Error(), "not signed with the cluster key") {
			t.Errorf("%s: consume = %v, want a signature refusal", c.name, err)
		}
		if _, err := os.Stat(filepath.Join(cons.dir, rel)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a file was left: %v", c.name, err)
		}
	}
	noTemps(t, cons.dir)
	if n := dialed.Load(); n != 0 {
		t.Errorf("the consumer contacted the fake owner %d times; it must refuse before", n)
	}
	if n := cons.agent.Counters()["bad_signatures"]; n != int64(len(cases)) {
		t.Errorf("bad_signatures = %d, want %d", n, len(cases))
	}
	consumeCheck(t, cons, "legit.bin", mustRead(t, filepath.Join(prod.dir, "legit.bin")))
}

// TestTamperedContentRefused: an owner holding the token that serves other bytes than
// the signed record names (same size and CRC are not enough) is caught after the
// transfer, by the content hash, and the file is not kept.
func TestTamperedContentRefused(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(64<<10, 52)
	produce(t, prod, "t.bin", data)
	if h := rawRecord(t, prod, "t.bin").Hash; !bytes.Equal(h, contentHash(h[:16], data)) {
		t.Fatalf("the record names tag %x, want the content's %x", h, contentHash(h[:16], data))
	}
	// Swap the file under the producer for one of the same size, keeping the record.
	other := randBytes(64<<10, 53)
	if err := os.WriteFile(filepath.Join(prod.dir, "t.bin"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := cons.client.Consume("t.bin")
	if err == nil || !(strings.Contains(err.Error(), "content checksum")) {
		t.Fatalf("consume of swapped content = %v, want a content checksum refusal", err)
	}
	if _, err := os.Stat(filepath.Join(cons.dir, "t.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file kept: %v", err)
	}
	noTemps(t, cons.dir)
}

// TestTamperedByteRefused: one byte changed in the middle of a chunk of a file of several
// chunks, after the owner published it, is caught by the content hash the consumer
// computes while the bytes arrive: the consume fails and neither the file nor a
// temporary is left.
func TestTamperedByteRefused(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(5<<20+333, 54)
	produce(t, prod, "b.bin", data)
	bad := bytes.Clone(data)
	bad[2<<20+(1<<19)+77] ^= 0x40
	if err := os.WriteFile(filepath.Join(prod.dir, "b.bin"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := cons.client.Consume("b.bin")
	if err == nil || !strings.Contains(err.Error(), "content checksum") {
		t.Fatalf("consume with one byte changed = %v, want a content checksum refusal", err)
	}
	if _, err := os.Stat(filepath.Join(cons.dir, "b.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file kept: %v", err)
	}
	noTemps(t, cons.dir)
}

// rawRecord reads rel's record as stored in etcd, with its hash and signature.
func rawRecord(t *testing.T, n *node, rel string) *wire.Meta {
	t.Helper()
	store, err := kvs.Open(context.Background(), n.agent.KVSEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, ok, _, err := kvs.Namespace(store, "dyad", "test").Get(ctx, n.client.Key(rel))
	if err != nil || !ok {
		t.Fatalf("record of %s: %v %v", rel, ok, err)
	}
	m, err := wire.DecodeMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sig) == 0 || len(m.Hash) != 32 {
		t.Fatalf("record of %s is not signed or names no content hash: %+v", rel, m)
	}
	return m
}

// contentHash is the content tag that records name of b under salt, as the tests'
// agents make it.
func contentHash(salt, b []byte) []byte {
	h, err := agent.NewContentMAC(testToken, salt)
	if err != nil {
		panic(err)
	}
	h.Write(b)
	return h.Sum()
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSkipContentHashSwitch: couplet bench switches one consumer's content hash off and
// on between stagings (Agent.SetSkipContentHash). Off, tampered bytes of the right size
// pass (only the signature and the size are checked); on again, the next staging of the
// same file catches them.
func TestSkipContentHashSwitch(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(1<<20, 55)
	produce(t, prod, "s.bin", data)
	bad := bytes.Clone(data)
	bad[1<<19] ^= 0x40
	if err := os.WriteFile(filepath.Join(prod.dir, "s.bin"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	cons.agent.SetSkipContentHash(true)
	got, err := cons.client.Consume("s.bin")
	if err != nil {
		t.Fatalf("consume with the hash off: %v", err)
	}
	if b := mustRead(t, got); !bytes.Equal(b, bad) {
		t.Fatalf("the copy staged with the hash off holds other bytes than the owner's file")
	}
	if err := os.Remove(got); err != nil {
		t.Fatal(err)
	}
	cons.agent.SetSkipContentHash(false)
	if _, err := cons.client.Consume("s.bin"); err == nil || !strings.Contains(err.Error(), "content checksum") {
		t.Fatalf("consume with the hash on again = %v, want a content checksum refusal", err)
	}
	noTemps(t, cons.dir)
}
