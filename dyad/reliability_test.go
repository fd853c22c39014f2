package dyad_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/dyad/peerauth"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/internal/mounttest"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

// sendRaw writes raw bytes to an agent endpoint and returns what came back
// before the agent closed the connection (or the 5 s deadline passed).
func sendRaw(t *testing.T, network, addr string, raw []byte) ([]byte, error) {
	t.Helper()
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if network == "tcp" {
		// The bytes go to the request decoder, past the authentication.
		if err := peerauth.Client(c, []byte(testToken), 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write(raw)
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
	return io.ReadAll(c)
}

// frameHeader is a wire frame length prefix.
func frameHeader(n uint32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	return b[:]
}

// TestAgentSurvivesBadRequests sends oversize, truncated, malformed and
// random requests to both agent endpoints: each is dropped or refused
// without a hang, and the agent goes on serving correct bytes.
func TestAgentSurvivesBadRequests(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(1<<20, 21)
	produce(t, prod, "good.bin", data)
	huge := make([]byte, wire.MaxFrame+1)
	bad := []struct {
		name string
		raw  []byte
	}{
		{"frame length 4 GiB-1", frameHeader(^uint32(0))},
		{"frame length 1 GiB with no body", frameHeader(1 << 30)},
		{"frame just over MaxFrame", append(frameHeader(wire.MaxFrame+1), huge...)},
		{"zero-length frame", frameHeader(0)},
		{"truncated header", []byte{0, 0}},
		{"truncated body", append(frameHeader(100), 1, 2, 3)},
		{"random bytes", randBytes(4096, 22)},
		{"msgpack garbage in a frame", append(frameHeader(8), 0xc1, 0xc1, 0xc1, 0xc1, 0xc1, 0xc1, 0xc1, 0xc1)},
	}
	for _, ep := range []struct{ network, addr string }{{"tcp", prod.agent.Addr()}, {"unix", prod.socket}} {
		for _, b := range bad {
			start := time.Now()
			reply, err := sendRaw(t, ep.network, ep.addr, b.raw)
			if time.Since(start) > 4*time.Second {
				t.Errorf("%s %s: the agent held the connection %v (err %v)", ep.network, b.name, time.Since(start), err)
			}
			if len(reply) > 0 {
				// A reply is allowed only as a clean error frame.
				m, derr := wire.Read(strings.NewReader(string(reply)))
				if derr != nil || m.Op != wire.OpError {
					t.Errorf("%s %s: reply %q (%v)", ep.network, b.name, reply, derr)
				}
			}
		}
	}
	// A well-formed request the peer port does not serve.
	if m := rawFetchOp(t, prod.agent.Addr(), &wire.Msg{Op: wire.OpStats}); m.Op != wire.OpError || !strings.Contains(m.Err, "not allowed") {
		t.Errorf("stats over TCP: %v %q, want refused", m.Op, m.Err)
	}
	// A fetch whose path alone is bigger than a frame cannot even be sent.
	if err := wire.Write(io.Discard, &wire.Msg{Op: wire.OpFetch, Path: strings.Repeat("a/", wire.MaxFrame)}); err == nil {
		t.Error("an oversize fetch was encoded")
	}
	if m := rawFetch(t, prod.agent.Addr(), testToken, strings.Repeat("d/", 2000)+"x"); m.Op != wire.OpError {
		t.Errorf("fetch of a 4 KB path that does not exist: %v", m.Op)
	}
	consumeCheck(t, cons, "good.bin", data)
	// Only the good fetch was served; the long path was the one rejection.
	ctr := prod.agent.Counters()
	if ctr["bytes_served"] != int64(len(data)) || ctr["fetches_served"] != 1 || ctr["rejected"] != 1 {
		t.Errorf("counters %v: want 1 fetch of %d bytes served and 1 rejection", ctr, len(data))
	}
}

// rawFetchOp sends one message to an agent's TCP port and returns the reply.
func rawFetchOp(t *testing.T, addr string, m *wire.Msg) *wire.Msg {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := peerauth.Client(c, []byte(testToken), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := wire.Write(c, m); err != nil {
		t.Fatal(err)
	}
	r, err := wire.Read(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hostileOwner serves every fetch with reply, a raw byte stream.
func hostileOwner(t *testing.T, reply func(size int64) []byte, size int64) string {
	t.Helper()
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
			go func() {
				defer c.Close()
				if err := peerauth.Server(c, []byte(testToken), 5*time.Second); err != nil {
					return
				}
				if _, err := wire.Read(c); err != nil {
					return
				}
				c.Write(reply(size))
			}()
		}
	}()
	return l.Addr().String()
}

func frame(t *testing.T, m *wire.Msg) []byte {
	var b strings.Builder
	if err := wire.Write(&b, m); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// TestHostileOwnerStream points a file's metadata at an owner that answers
// with bad streams: the consumer fails with an error, leaves no partial or
// temporary file, and the agent's flight for the key is released.
func TestHostileOwnerStream(t *testing.T) {
	const size = 256 << 10
	data := randBytes(size, 23)
	hdr := func(n int64) []byte { return frame(t, &wire.Msg{Op: wire.OpHeader, Meta: &wire.Meta{Size: n}}) }
	chunk := func(p []byte) []byte { return append(frame(t, &wire.Msg{Op: wire.OpChunk, N: int64(len(p))}), p...) }
	end := frame(t, &wire.Msg{Op: wire.OpEnd})
	cases := []struct {
		name  string
		reply func(int64) []byte
		want  string
	}{
		{"chunk over MaxChunk", func(n int64) []byte {
			return append(hdr(n), frame(t, &wire.Msg{Op: wire.OpChunk, N: wire.MaxChunk + 1})...)
		}, "stream broke"},
		{"size differs from metadata", func(n int64) []byte { return hdr(n + 1) }, "metadata says"},
		{"more bytes than announced", func(n int64) []byte {
			return append(append(hdr(n), chunk(data)...), chunk([]byte("extra"))...)
		}, "unexpected"},
		{"stream ends early", func(n int64) []byte { return append(hdr(n), chunk(data[:1000])...) }, "stream broke"},
		{"end before all bytes", func(n int64) []byte { return append(append(hdr(n), chunk(data[:1000])...), end...) }, "want"},
		{"wrong bytes", func(n int64) []byte {
			bad := append([]byte(nil), data...)
			bad[size/2] ^= 1
			return append(append(hdr(n), chunk(bad)...), end...)
		}, "checksum"},
		{"frame length 1 GiB", func(n int64) []byte { return append(hdr(n), frameHeader(1<<30)...) }, "stream broke"},
		{"error frame", func(n int64) []byte { return frame(t, &wire.Msg{Op: wire.OpError, Err: "disk on fire"}) }, "disk on fire"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			owner := hostileOwner(t, c.reply, size)
			prod := startNode(t, "", func(o *agent.Options) { o.Advertise = owner })
			// The hostile owner speaks the rpc stream, so the consumer must use it.
			cons := startNode(t, prod.agent.KVSEndpoint(), func(o *agent.Options) { o.IdleTimeout, o.DTL = 2*time.Second, "rpc" })
			rel := "h" + string(rune('a'+i)) + ".bin"
			produce(t, prod, rel, data)
			start := time.Now()
			_, err := cons.client.Consume(rel)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("consume from a hostile owner: err = %v, want %q", err, c.want)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Errorf("the error took %v", d)
			}
			if _, err := os.Stat(filepath.Join(cons.dir, rel)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file was left at the destination: %v", err)
			}
			noTemps(t, cons.dir)
		})
	}
}

// TestDiskFullWhileStaging stages a 4 MiB file into a 1 MiB tmpfs: the
// consumer gets ENOSPC, and neither a partial file nor a temporary remains.
func TestDiskFullWhileStaging(t *testing.T) {
	small := mounttest.Tmpfs(t, "1m")
	prod := startNode(t, "", nil)
	dir := filepath.Join(small, "managed")
	sock := sockPath(t)
	a, err := agent.Start(agent.Options{ProducerDir: dir, Token: testToken, Socket: sock, KVS: prod.agent.KVSEndpoint(), LogWriter: &syncBuf{},
		StateDir: filepath.Join(t.TempDir(), "state")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	c := newClient(t, dir, sock, nil)
	big, fits := randBytes(4<<20, 24), randBytes(100<<10, 25)
	produce(t, prod, "big.bin", big)
	produce(t, prod, "fits.bin", fits)
	_, err = c.Consume("big.bin")
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("staging 4 MiB into 1 MiB: err = %v, want no space left on device", err)
	}
	if n := prod.agent.Counters()["fetches_served"]; n != 0 {
		t.Errorf("producer served %d fetches: the free-space check must refuse before fetching", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial file left: %v", err)
	}
	noTemps(t, dir)
	// The space the failed staging used is free again: a file that fits stages.
	p, err := c.Consume("fits.bin")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != string(fits) {
		t.Fatal("the file that fits came out wrong")
	}
}

// TestAgentRestartKeepsMetadata kills the producer's agent (and the etcd it
// hosts) while a consumer waits for a file that is not produced yet, then
// restarts it on the same ports and data directory: the metadata published
// before the crash is still there, and the waiting consumer either resumes
// and gets the file produced after the restart or fails with a clear error.
func TestAgentRestartKeepsMetadata(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prod")
	os.MkdirAll(dir, 0o755)
	listen, ec, ep := etcdtest.StableAddr(t), etcdtest.StableAddr(t), etcdtest.StableAddr(t)
	o := agent.Options{ProducerDir: dir, Token: testToken, Listen: listen, Socket: sockPath(t), EtcdClient: ec, EtcdPeer: ep}
	sub := startSubAgent(t, o)
	cons := startNode(t, sub.kvs, nil)
	pc := newClient(t, dir, o.Socket, nil)
	early, late := randBytes(300<<10, 26), randBytes(200<<10, 27)
	os.WriteFile(filepath.Join(dir, "early.bin"), early, 0o644)
	if _, err := pc.Produce("early.bin"); err != nil {
		t.Fatal(err)
	}
	waiter := newClient(t, cons.dir, cons.socket, func(c *dyad.Config) { c.Timeout = 30 * time.Second })
	done := make(chan error, 1)
	go func() {
		p, err := waiter.Consume("late.bin")
		if err == nil {
			if got, _ := os.ReadFile(p); string(got) != string(late) {
				err = errors.New("resumed consumer got wrong bytes")
			}
		}
		done <- err
	}()
	// The consumer is waiting in the KVS once its agent counts the wait.
	waitCounter(t, cons, "kvs_waits", 1)
	sub.cmd.Process.Signal(os.Kill)
	sub.cmd.Wait()
	startSubAgent(t, o)
	// Published before the crash, consumed after the restart.
	consumeCheck(t, cons, "early.bin", early)
	os.WriteFile(filepath.Join(dir, "late.bin"), late, 0o644)
	pc2 := newClient(t, dir, o.Socket, nil)
	if _, err := pc2.Produce("late.bin"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the waiting consumer did not resume across the restart: %v", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("the waiting consumer hung across the agent restart")
	}
	noTemps(t, cons.dir)
}

// TestConsumerAgentRestart kills the consumer's own node agent while a
// consumer waits on it for a file, and restarts it: the consumer either
// resumes and gets the file produced afterwards or fails with a clear error,
// well before its timeout, and leaves nothing partial behind.
func TestConsumerAgentRestart(t *testing.T) {
	prod := startNode(t, "", nil)
	dir := filepath.Join(t.TempDir(), "cons")
	os.MkdirAll(dir, 0o755)
	listen := etcdtest.StableAddr(t)
	o := agent.Options{ProducerDir: dir, Token: testToken, Listen: listen, Socket: sockPath(t), KVS: prod.agent.KVSEndpoint()}
	sub := startSubAgent(t, o)
	waiter := newClient(t, dir, o.Socket, func(c *dyad.Config) { c.Timeout = 30 * time.Second })
	data := randBytes(100<<10, 28)
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		p, err := waiter.Consume("later.bin")
		if err == nil {
			if got, _ := os.ReadFile(p); string(got) != string(data) {
				err = errors.New("resumed consumer got wrong bytes")
			}
		}
		done <- err
	}()
	// Kill the agent once the consumer waits on it for the file.
	awaitCounter(t, waiter, "kvs_waits", 1)
	sub.cmd.Process.Signal(os.Kill)
	sub.cmd.Wait()
	startSubAgent(t, o)
	produce(t, prod, "later.bin", data)
	select {
	case err := <-done:
		if err != nil && strings.Contains(err.Error(), "wrong bytes") {
			t.Fatal(err)
		}
		if err != nil && !strings.Contains(err.Error(), "agent") {
			t.Fatalf("the consumer's error does not say its agent went away: %v", err)
		}
		t.Logf("after %v: err = %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(25 * time.Second):
		t.Fatal("the consumer hung after its agent died")
	}
	noTemps(t, dir)
	// A fresh consume through the restarted agent works.
	consumeCheck(t, &node{dir: dir, client: newClient(t, dir, o.Socket, nil)}, "later.bin", data)
}
