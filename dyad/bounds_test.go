package dyad_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// TestSizeCapRefusedBeforeWrite: a declared size over the consumer agent's cap is refused
// before anything is fetched or written.
func TestSizeCapRefusedBeforeWrite(t *testing.T) {
	prod := startNode(t, "", nil)
	cons := startNode(t, prod.agent.KVSEndpoint(), func(o *agent.Options) { o.MaxFileSize = 4096 })
	produce(t, prod, "big.bin", randBytes(4097, 31))
	fits := randBytes(4096, 32)
	produce(t, prod, "fits.bin", fits)
	_, err := cons.client.Consume("big.bin")
	if err == nil || !strings.Contains(err.Error(), "size cap") {
		t.Fatalf("consume of 4097 bytes with a cap of 4096: err = %v, want a size cap refusal", err)
	}
	if _, err := os.Stat(filepath.Join(cons.dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused file exists: %v", err)
	}
	noTemps(t, cons.dir)
	if n := prod.agent.Counters()["fetches_served"]; n != 0 {
		t.Errorf("producer served %d fetches; the refusal must come before any fetch", n)
	}
	consumeCheck(t, cons, "fits.bin", fits)
}

// TestStateDirSymlinkRefused: symlinks into the agent's internal state are refused,
// whatever their name, because the check is on the resolved directory's identity.
func TestStateDirSymlinkRefused(t *testing.T) {
	prod := startNode(t, "", nil)
	produce(t, prod, "ok.bin", []byte("fine"))
	for _, l := range []struct{ name, target string }{
		{"state", ".couplet/agent"},
		{"dot", ".couplet"},
		{"sub/deep", "../.couplet/agent/etcd"},
	} {
		p := filepath.Join(prod.dir, l.name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(l.target, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"state/etcd/member/snap/db", "dot/agent/etcd/member/snap/db", "sub/deep/member/snap/db"} {
		if _, err := os.Stat(filepath.Join(prod.dir, p)); err != nil {
			t.Fatalf("test setup: %v", err)
		}
		m := rawFetch(t, prod.agent.Addr(), testToken, p)
		if m.Op != wire.OpError || !strings.Contains(m.Err, "internal state") {
			t.Errorf("fetch %q = %v %q, want refused as internal state", p, m.Op, m.Err)
		}
	}
	if m := rawFetch(t, prod.agent.Addr(), testToken, "ok.bin"); m.Op != wire.OpHeader {
		t.Errorf("legitimate fetch = %v %q", m.Op, m.Err)
	}
}

// TestHardLinkRefused: with RefuseHardLinks, a hard link to a file outside the managed
// directory is not served; without it, it is.
func TestHardLinkRefused(t *testing.T) {
	for _, refuse := range []bool{true, false} {
		prod := startNode(t, "", func(o *agent.Options) { o.RefuseHardLinks = refuse })
		outside := filepath.Join(filepath.Dir(prod.dir), "outside")
		os.WriteFile(outside, []byte("outside"), 0o644)
		if err := os.Link(outside, filepath.Join(prod.dir, "hl")); err != nil {
			t.Fatal(err)
		}
		m := rawFetch(t, prod.agent.Addr(), testToken, "hl")
		if refused := m.Op == wire.OpError && strings.Contains(m.Err, "hard links"); refused != refuse {
			t.Errorf("RefuseHardLinks=%v: fetch of a hard link = %v %q", refuse, m.Op, m.Err)
		}
	}
}

// TestStagingStopsAtClientDeadline: when the client's transfer timeout passes, the agent
// stops the staging and removes its temporary file at once, not after the idle timeout.
func TestStagingStopsAtClientDeadline(t *testing.T) {
	prod := startNode(t, "", func(o *agent.Options) { o.ChunkSize, o.ChunkDelay = 64<<10, 300*time.Millisecond })
	cons := startNode(t, prod.agent.KVSEndpoint(), nil)
	produce(t, prod, "slow.bin", randBytes(2<<20, 33)) // 32 chunks: about 10 s
	c := newClient(t, cons.dir, cons.socket, func(c *dyad.Config) { c.TransferTimeout = 800 * time.Millisecond })
	start := time.Now()
	if _, err := c.Consume("slow.bin"); err == nil {
		t.Fatal("consume finished before its deadline; the test needs a slower producer")
	}
	// The staging's temporary file goes once the agent gives up: well before the
	// producer would have finished, and long before the 30 s idle timeout.
	awaitDir(t, cons.dir, 8*time.Second-time.Since(start), "the staging stopped after its client's deadline (idle timeout 30 s)", func() bool {
		ms, _ := filepath.Glob(filepath.Join(cons.dir, dyad.TempPattern("slow.bin")))
		return len(ms) == 0
	})
	if _, err := os.Stat(filepath.Join(cons.dir, "slow.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file staged after its deadline: %v", err)
	}
}

// TestStagingStopsWhenClientGoes: a client that goes away mid-staging (its context ends,
// its connection closes) stops the staging at once: the temporary file goes, and no file
// is staged, long before the transfer timeout or the slow producer would end it.
func TestStagingStopsWhenClientGoes(t *testing.T) {
	prod := startNode(t, "", func(o *agent.Options) { o.ChunkSize, o.ChunkDelay = 64<<10, 300*time.Millisecond })
	cons := startNode(t, prod.agent.KVSEndpoint(), nil)
	produce(t, prod, "slow.bin", randBytes(2<<20, 34)) // 32 chunks: about 10 s
	c := newClient(t, cons.dir, cons.socket, func(c *dyad.Config) { c.TransferTimeout = time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.ConsumeVersion(ctx, "slow.bin", 0)
		done <- err
	}()
	start := time.Now()
	awaitDir(t, cons.dir, 30*time.Second, "the staging began", func() bool { return tempGrown(cons.dir, "slow.bin", 0) })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("consume after its context ended: %v, want context.Canceled", err)
	}
	awaitDir(t, cons.dir, 8*time.Second-time.Since(start), "the staging stopped after its client went away", func() bool {
		ms, _ := filepath.Glob(filepath.Join(cons.dir, dyad.TempPattern("slow.bin")))
		return len(ms) == 0
	})
	if _, err := os.Stat(filepath.Join(cons.dir, "slow.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file staged after its client went away: %v", err)
	}
}

// asNobody runs a command as uid/gid 65534 (needs root and setpriv).
func asNobody(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("acting as another user needs root")
	}
	sp, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv not installed")
	}
	return exec.Command(sp, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups"}, args...)...)
}

// TestClientRefusesSquattedSocket: another user listening on the agent socket path gets
// no request: the client checks the listener's uid first.
func TestClientRefusesSquattedSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "squat")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	sock := filepath.Join(dir, "agent.sock")
	cmd := asNobody(t, "/usr/bin/python3", "-c", `import socket,sys
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); print("ready", flush=True)
c,_=s.accept(); d=c.recv(100); print("got", len(d), flush=True)`, sock)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(out)
	if line, _ := r.ReadString('\n'); line != "ready\n" {
		t.Fatalf("squatter: %q", line)
	}
	c := newClient(t, dir, sock, nil)
	_, err = c.Counters(t.Context())
	if !errors.Is(err, dyad.ErrAgentOwner) {
		t.Fatalf("request to a squatted socket: err = %v, want ErrAgentOwner", err)
	}
	if line, _ := r.ReadString('\n'); line != "got 0\n" {
		t.Errorf("the squatter received %q, want nothing", line)
	}
}

// TestAgentRefusesOtherUID: even on a socket others can open, the agent serves only its
// own uid and root: the kernel tells it who connected.
func TestAgentRefusesOtherUID(t *testing.T) {
	n := startNode(t, "", nil)
	cmd := asNobody(t, "/usr/bin/python3", "-c", `import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
print(s.recv(4096))`, n.socket)
	os.Chmod(n.socket, 0o666)
	os.Chmod(filepath.Dir(n.socket), 0o755)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "unauthorized") {
		t.Errorf("agent answered uid 65534 with %s, want unauthorized", out)
	}
	if got := n.agent.Counters()["unauthorized"]; got != 1 {
		t.Errorf("unauthorized counter = %d, want 1", got)
	}
}
