package dyadlib

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad/agent"
)

// work holds what the tests build once: the library and the test programs.
var work string

func TestMain(m *testing.M) {
	var err error
	if work, err = os.MkdirTemp("", "dyadlib-test-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(work)
	os.Exit(code)
}

var built sync.Map // name -> *buildOnce

type buildOnce struct {
	once sync.Once
	path string
	err  error
}

// once builds name with fn a single time per test binary.
func once(t testing.TB, name string, fn func(out string) error) string {
	t.Helper()
	v, _ := built.LoadOrStore(name, &buildOnce{})
	b := v.(*buildOnce)
	b.once.Do(func() {
		b.path = filepath.Join(work, name)
		b.err = fn(b.path)
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", name, b.err)
	}
	return b.path
}

// lib builds libcouplet-dyad.so.
func lib(t testing.TB) string { return once(t, "libcouplet-dyad.so", Build) }

// compile builds a program from C or C++ sources with extra arguments.
func compile(t testing.TB, name, compiler string, args ...string) string {
	return once(t, name, func(out string) error {
		a := append([]string{"-O1", "-g", "-Wall", "-Werror", "-o", out}, args...)
		if b, err := exec.Command(compiler, a...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s %v: %v\n%s", compiler, a, err, b)
		}
		return nil
	})
}

// againstLib compiles a C or C++ client of the DYAD API, linked with the library.
func againstLib(t testing.TB, name, compiler string, srcs ...string) string {
	l := lib(t)
	args := []string{"-I" + IncludeDir()}
	args = append(args, srcs...)
	args = append(args, "-L"+filepath.Dir(l), "-lcouplet-dyad", "-Wl,-rpath,"+filepath.Dir(l))
	return compile(t, name, compiler, args...)
}

// wiretest builds testdata/wiretest.c with the library's internals.
func wiretest(t testing.TB) string {
	srcs, err := Sources()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-I" + IncludeDir(), filepath.Join(Dir(), "testdata", "wiretest.c")}
	for _, s := range srcs {
		if filepath.Base(s) != "wrap.c" {
			args = append(args, s)
		}
	}
	return compile(t, "wiretest", "cc", append(args, "-lpthread")...)
}

// testToken is the cluster token of the tests' agents, so that they trust each other.
const testToken = "dyadlib-test-cluster-token-0b7d"

// node is one simulated node: its managed directory and its agent.
type node struct {
	dir    string
	socket string
	agent  *agent.Agent
	log    *syncBuf
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startNode(t testing.TB, kvsURL string, mods ...func(*agent.Options)) *node {
	t.Helper()
	sd, err := os.MkdirTemp("", "dy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sd) })
	n := &node{dir: filepath.Join(t.TempDir(), "managed"), socket: filepath.Join(sd, "agent.sock"), log: &syncBuf{}}
	o := agent.Options{ProducerDir: n.dir, Socket: n.socket, KVS: kvsURL, LogWriter: n.log, Token: testToken}
	for _, m := range mods {
		m(&o)
	}
	a, err := agent.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	n.agent = a
	return n
}

// twoNodes starts a producer node (embedded etcd) and a consumer node joining it.
func twoNodes(t testing.TB, mods ...func(*agent.Options)) (prod, cons *node) {
	prod = startNode(t, "", mods...)
	cons = startNode(t, prod.agent.KVSEndpoint(), mods...)
	return prod, cons
}

// baseEnv is the environment without any DYAD or couplet staging setting.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "DYAD_") || k == "COUPLET_AGENT_SOCKET" || k == "LD_PRELOAD" ||
			strings.HasPrefix(k, "COUPLET_DYAD_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// namespace is unique per test, so that tests sharing an etcd never see each other.
func namespace(t testing.TB) string {
	return "t-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
}

// producerEnv and consumerEnv configure a process for one role on node n.
func producerEnv(t testing.TB, n *node, extra ...string) []string {
	return append(append(baseEnv(), "DYAD_KVS_NAMESPACE="+namespace(t), "DYAD_PATH_PRODUCER="+n.dir,
		"COUPLET_AGENT_SOCKET="+n.socket, "COUPLET_DYAD_TIMEOUT=120s"), extra...)
}

func consumerEnv(t testing.TB, n *node, extra ...string) []string {
	return append(append(baseEnv(), "DYAD_KVS_NAMESPACE="+namespace(t), "DYAD_PATH_CONSUMER="+n.dir,
		"COUPLET_AGENT_SOCKET="+n.socket, "COUPLET_DYAD_TIMEOUT=120s"), extra...)
}

func preload(t testing.TB, env []string) []string { return append(env, "LD_PRELOAD="+lib(t)) }

// proc is a started command whose output the test reads when it exits.
type proc struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	errb   syncBuf
	done   chan struct{}
	waitEr error
}

func start(t testing.TB, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout = &p.out
	p.cmd.Stderr = &p.errb
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.waitEr = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits for the process to exit and returns its stdout; it fails the test on a
// non-zero exit.
func (p *proc) wait(t testing.TB, timeout time.Duration) string {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%v did not finish in %v; stderr:\n%s", p.cmd.Args, timeout, p.errb.String())
	}
	if p.waitEr != nil {
		t.Fatalf("%v: %v\nstdout:\n%s\nstderr:\n%s", p.cmd.Args, p.waitEr, p.out.String(), p.errb.String())
	}
	return p.out.String()
}

// run runs a command to completion and returns its stdout.
func run(t testing.TB, env []string, name string, args ...string) string {
	t.Helper()
	return start(t, env, name, args...).wait(t, 3*time.Minute)
}

// awaitWaiting waits until node n's agent holds want KVS waits, i.e. consumers that
// reached the blocking wait for a file not produced yet. It checks meanwhile that the
// consumer p has not exited and that the file at path is absent.
func awaitWaiting(t testing.TB, n *node, want int64, p *proc, path string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for n.agent.Counters()["kvs_waits"] < want {
		if p.exited() {
			t.Fatalf("consumer %v exited before blocking: %v\nstdout:\n%s\nstderr:\n%s", p.cmd.Args, p.waitEr,
				p.out.String(), p.errb.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer %v never reached the agent's wait; stderr:\n%s", p.cmd.Args, p.errb.String())
		}
		<-tick.C
	}
	if p.exited() {
		t.Fatalf("consumer %v exited while the file was not produced: %v\nstderr:\n%s", p.cmd.Args, p.waitEr, p.errb.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists before it was produced (stat: %v)", path, err)
	}
}
