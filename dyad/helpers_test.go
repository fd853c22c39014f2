package dyad_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
)

const agentEnv = "COUPLET_DYAD_TEST_AGENT"

// testToken is the cluster token of the tests' agents, so that they fetch from each other.
const testToken = "test-cluster-token-5f0c2b9e"

// TestMain doubles as the agent program for subprocess tests: with agentEnv set it runs
// an agent from the JSON options in that variable until killed.
func TestMain(m *testing.M) {
	if js := os.Getenv(agentEnv); js != "" {
		var o agent.Options
		if err := json.Unmarshal([]byte(js), &o); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := setNofile(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		a, err := agent.Start(o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("READY %s %s\n", a.Addr(), a.KVSEndpoint())
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		a.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// syncBuf is a log sink that tests can read while the agent writes, and wait on.
type syncBuf struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed and replaced at each write
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

// awaitLine waits until the log holds a line containing text, woken by each write.
func (s *syncBuf) awaitLine(t testing.TB, text string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), text) {
			s.mu.Unlock()
			return
		}
		if s.wrote == nil {
			s.wrote = make(chan struct{})
		}
		wrote := s.wrote
		s.mu.Unlock()
		select {
		case <-wrote:
		case <-deadline:
			t.Fatalf("no log line says %q within a minute; log:\n%s", text, s.String())
		}
	}
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// node is one simulated node: a managed directory, an agent and a client.
type node struct {
	dir    string
	agent  *agent.Agent
	client *dyad.Client
	log    *syncBuf
	socket string
}

func sockPath(t testing.TB) string {
	d, err := os.MkdirTemp("", "dy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d, "agent.sock")
}

// startNode starts an agent (embedded etcd when kvsURL is empty) and a client for it.
func startNode(t testing.TB, kvsURL string, mod func(*agent.Options)) *node {
	t.Helper()
	n := &node{dir: filepath.Join(t.TempDir(), "managed"), log: &syncBuf{}, socket: sockPath(t)}
	o := agent.Options{ProducerDir: n.dir, Socket: n.socket, KVS: kvsURL, LogWriter: n.log, Token: testToken}
	if mod != nil {
		mod(&o)
	}
	a, err := agent.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	n.agent = a
	n.client = newClient(t, n.dir, n.socket, nil)
	return n
}

func newClient(t testing.TB, dir, socket string, mod func(*dyad.Config)) *dyad.Client {
	cfg := dyad.Config{Namespace: "test", ProducerDir: dir, ConsumerDir: dir, PathRelative: true,
		KeyDepth: 3, KeyBins: 1024, AgentSocket: socket, Timeout: 10 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	c, err := dyad.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pair starts a producer node with embedded etcd and a consumer node joining it.
func pair(t testing.TB) (prod, cons *node) {
	prod = startNode(t, "", nil)
	cons = startNode(t, prod.agent.KVSEndpoint(), nil)
	return prod, cons
}

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// produce writes data to rel under the producer node via Create and returns the metadata.
func produce(t testing.TB, n *node, rel string, data []byte) *dyad.Meta {
	t.Helper()
	f, err := n.client.Create(rel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	m, _, err := n.client.Stat(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func consumeCheck(t testing.TB, n *node, rel string, want []byte) {
	t.Helper()
	p, err := n.client.Consume(rel)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: consumed %d bytes differ from the %d produced", rel, len(got), len(want))
	}
}

// noTemps fails if a staging temporary file or a partial destination is left in dir.
func noTemps(t testing.TB, dir string) {
	t.Helper()
	for _, p := range tempsIn(dir) {
		t.Errorf("temporary file left behind: %s", p)
	}
}

// tempsIn lists the staging temporary files (of files and of sidecars) under dir.
func tempsIn(dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(info.Name(), dyad.TempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// subAgent runs an agent as a subprocess (this test binary) so that it can be SIGKILLed.
type subAgent struct {
	cmd  *exec.Cmd
	addr string
	kvs  string
}

func startSubAgent(t testing.TB, o agent.Options) *subAgent {
	t.Helper()
	js, _ := json.Marshal(o)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), agentEnv+"="+string(js))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &subAgent{cmd: cmd}
	t.Cleanup(s.kill)
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "READY" {
			t.Fatalf("agent subprocess did not start: %q", line)
		}
		s.addr, s.kvs = f[1], f[2]
	case <-time.After(30 * time.Second):
		t.Fatal("agent subprocess not ready in 30 s")
	}
	return s
}

func (s *subAgent) kill() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// waitCounter waits until the agent behind n's client reports counter >= want.
func waitCounter(t *testing.T, n *node, counter string, want int64) {
	t.Helper()
	awaitCounter(t, n.client, counter, want)
}

// awaitCounter waits until the agent behind c's socket reports counter >= want: the
// event a test synchronises on (a consumer reached the KVS wait, a connection was
// accepted), read from the agent's counters on each tick.
func awaitCounter(t *testing.T, c *dyad.Client, counter string, want int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cs, err := c.Counters(ctx)
		cancel()
		if err == nil && cs[counter] >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("counter %s never reached %d (last %v, %v)", counter, want, cs[counter], err)
		}
		<-tick.C
	}
}

// awaitDir waits until cond holds, testing it at the start and again at each change
// inotify reports in dir (a file created, written, closed, renamed or removed): the test
// waits on the file system's events, not on a sleep. It fails after within.
func awaitDir(t testing.TB, dir string, within time.Duration, what string, cond func() bool) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	defer f.Close()
	const events = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_DELETE |
		unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB
	if _, err := unix.InotifyAddWatch(fd, dir, events); err != nil {
		t.Fatalf("inotify watch %s: %v", dir, err)
	}
	// Non-blocking, the descriptor is in the runtime's poller, so the read honours the deadline.
	f.SetReadDeadline(time.Now().Add(within))
	buf := make([]byte, 64<<10)
	for !cond() {
		if _, err := f.Read(buf); err != nil {
			t.Fatalf("never happened within %v: %s (%v)", within, what, err)
		}
	}
}

// tempGrown says whether the staging of name into dir has a temporary file of more than
// n bytes: the transfer is under way.
func tempGrown(dir, name string, n int64) bool {
	ms, _ := filepath.Glob(filepath.Join(dir, dyad.TempPattern(name)))
	for _, m := range ms {
		if st, err := os.Stat(m); err == nil && st.Size() > n {
			return true
		}
	}
	return false
}
