package dyadlib

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
)

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 9))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return b
}

// TestPreloadCpSha256 is file staging for unmodified programs between two nodes:
// sha256sum of the consumer path, started first, blocks; cp writes 50 MB into the
// producer directory (a subdirectory that does not exist yet); sha256sum then prints
// the right hash.
func TestPreloadCpSha256(t *testing.T) {
	prod, cons := twoNodes(t)
	data := randBytes(50<<20, 1)
	src := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])

	consPath := filepath.Join(cons.dir, "run1", "big.bin")
	sha := start(t, preload(t, consumerEnv(t, cons)), "sha256sum", consPath)
	awaitWaiting(t, cons, 1, sha, consPath)

	run(t, preload(t, producerEnv(t, prod)), "cp", src, filepath.Join(prod.dir, "run1", "big.bin"))
	out := sha.wait(t, 3*time.Minute)
	if got := strings.Fields(out); len(got) != 2 || got[0] != want || got[1] != consPath {
		t.Fatalf("sha256sum printed %q, want %s  %s", out, want, consPath)
	}
	// One request to the consumer's agent: it located the record (waiting in the KVS) and
	// staged the file.
	if c := cons.agent.Counters(); c["stages"] != 1 || c["stage_bytes"] != 50<<20 || c["local_requests"] != 1 {
		t.Fatalf("consumer agent counters %v: want one request and one staging of 50 MiB", c)
	}
	if c := prod.agent.Counters(); c["publishes"] != 1 {
		t.Fatalf("producer agent counters %v: want one publish", c)
	}
}

// TestPreloadShellAndPython: bash redirections on the producer side (a builtin's
// redirection, undone with dup2; an external command's, set up before exec; an append)
// and python3's open on the consumer side, started first.
func TestPreloadShellAndPython(t *testing.T) {
	prod, cons := twoNodes(t)
	read := `import sys
with open(sys.argv[1]) as f:
    sys.stdout.write(f.read())
`
	for i, c := range []struct {
		name, script, want string
	}{
		{"builtin", `echo "hello from bash" > "$1"`, "hello from bash\n"},
		{"external", `seq 1 3 > "$1"`, "1\n2\n3\n"},
		{"subshell", `( echo a; printf 'b\n' ) > "$1"; echo c >> /dev/null`, "a\nb\n"},
		{"fork", `{ echo x; bash -c 'echo y'; } > "$1"`, "x\ny\n"},
		{"relative", `cd / && cd "$(dirname "$1")" && echo rel > "$(basename "$1")"`, "rel\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rel := filepath.Join("shell", c.name+".txt")
			consPath := filepath.Join(cons.dir, rel)
			py := start(t, preload(t, consumerEnv(t, cons)), "/usr/bin/python3", "-c", read, consPath)
			awaitWaiting(t, cons, int64(i+1), py, consPath)
			run(t, preload(t, producerEnv(t, prod)), "bash", "-c", c.script, "_", filepath.Join(prod.dir, rel))
			if out := py.wait(t, 2*time.Minute); out != c.want {
				t.Fatalf("python read %q, want %q", out, c.want)
			}
		})
	}
	if c := prod.agent.Counters(); c["publishes"] != 5 {
		t.Fatalf("producer published %d times, want once per file (5)", c["publishes"])
	}
}

// TestPreloadPassThrough: outside the managed directories nothing changes, in programs
// that fork, exec, and run threads; reads in the producer directory and writes in the
// consumer directory pass too.
func TestPreloadPassThrough(t *testing.T) {
	prod, cons := twoNodes(t)
	other := t.TempDir()
	env := preload(t, append(producerEnv(t, prod), "DYAD_PATH_CONSUMER="+cons.dir))
	script := `set -e
cd "$1"
echo one > a.txt
cat a.txt | tr a-z A-Z > b.txt
python3 - <<'EOF'
import threading, os
def work(i):
    for k in range(50):
        with open("t%d.txt" % i, "w") as f:
            f.write("%d\n" % k)
        with open("t%d.txt" % i) as f:
            f.read()
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
pid = os.fork()
if pid == 0:
    open("child.txt", "w").write("child\n")
    os._exit(0)
os.waitpid(pid, 0)
EOF
cat b.txt child.txt t3.txt
cat "$3/pre.txt"
echo local > "$2/w.txt"
`
	os.MkdirAll(prod.dir, 0o755)
	if err := os.WriteFile(filepath.Join(prod.dir, "pre.txt"), []byte("pre\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, env, "bash", "-c", script, "_", other, cons.dir, prod.dir)
	if want := "ONE\nchild\n49\npre\n"; out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	if b, err := os.ReadFile(filepath.Join(cons.dir, "w.txt")); err != nil || string(b) != "local\n" {
		t.Fatalf("file written in the consumer directory: %q %v", b, err)
	}
	for _, n := range []*node{prod, cons} {
		if c := n.agent.Counters(); c["publishes"] != 0 || c["kvs_waits"] != 0 || c["stages"] != 0 {
			t.Fatalf("agent counters %v: nothing outside the managed roles should reach the agent", c)
		}
	}
}

// TestPreloadErrors: failures reach the program as errno with a clear log line.
func TestPreloadErrors(t *testing.T) {
	prod, cons := twoNodes(t)
	catPy := `import sys
try:
    open(sys.argv[1]).read()
except OSError as e:
    print(e.errno, e.strerror)
`
	for _, c := range []struct {
		name    string
		env     []string
		want    string // python's errno and message
		logWant string
	}{
		{"no agent", append(baseEnv(), "DYAD_KVS_NAMESPACE=x", "DYAD_PATH_CONSUMER="+cons.dir,
			"COUPLET_AGENT_SOCKET="+filepath.Join(t.TempDir(), "none.sock")),
			"111 Connection refused", "no agent at"},
		{"not produced", consumerEnv(t, cons, "COUPLET_DYAD_TIMEOUT=300ms"), "110 Connection timed out", "not produced"},
		{"no namespace", append(baseEnv(), "DYAD_PATH_CONSUMER="+cons.dir, "COUPLET_AGENT_SOCKET="+cons.socket),
			"22 Invalid argument", "DYAD_KVS_NAMESPACE is required"},
		{"bad boolean", consumerEnv(t, cons, "DYAD_SHARED_STORAGE=maybe"), "22 Invalid argument", "is not a boolean"},
		{"margo", consumerEnv(t, cons, "DYAD_DTL_MODE=MARGO"), "22 Invalid argument", "not available on this platform"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, preload(t, c.env), "/usr/bin/python3", "-c", catPy, filepath.Join(cons.dir, "missing.txt"))
			out := p.wait(t, time.Minute)
			if strings.TrimSpace(out) != c.want {
				t.Errorf("python saw %q, want %q", strings.TrimSpace(out), c.want)
			}
			if log := p.errb.String(); !strings.Contains(log, "couplet-dyad[") || !strings.Contains(log, c.logWant) {
				t.Errorf("log %q does not say %q", log, c.logWant)
			}
		})
	}
	// A publish the agent refuses fails the program's close.
	t.Run("publish refused", func(t *testing.T) {
		env := preload(t, append(producerEnv(t, prod), "COUPLET_AGENT_SOCKET="+cons.socket))
		p := start(t, env, "bash", "-c", `echo x > "$1" || echo "failed $?"`, "_", filepath.Join(prod.dir, "r.txt"))
		p.wait(t, time.Minute)
		if log := p.errb.String(); !strings.Contains(log, "not under this agent's producer directory") {
			t.Errorf("log %q does not say why the publish was refused", log)
		}
	})
}

// TestPreloadLocalCopy: a second consumer of a staged file finds the complete local
// copy by its record, without asking the agent: the record the copy carries as an
// extended attribute, and on a ramfs, which keeps none, its sidecar.
func TestPreloadLocalCopy(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string // the consumer's managed directory
	}{
		{"attribute", func(t *testing.T) string { return filepath.Join(t.TempDir(), "managed") }},
		{"sidecar", func(t *testing.T) string {
			ram := filepath.Join(t.TempDir(), "ram")
			os.MkdirAll(ram, 0o755)
			if out, err := exec.Command("mount", "-t", "ramfs", "ramfs", ram).CombinedOutput(); err != nil {
				t.Skipf("cannot mount a ramfs (needs root): %v %s", err, out)
			}
			t.Cleanup(func() { exec.Command("umount", "-l", ram).Run() })
			return filepath.Join(ram, "managed")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			prod := startNode(t, "")
			cons := startNode(t, prod.agent.KVSEndpoint(), func(o *agent.Options) { o.ProducerDir = dir })
			cons.dir = dir
			penv := preload(t, producerEnv(t, prod))
			cenv := preload(t, consumerEnv(t, cons))
			run(t, penv, "bash", "-c", `echo v1 > "$1"`, "_", filepath.Join(prod.dir, "v.txt"))
			var asked int64
			for i := 0; i < 2; i++ {
				if out := run(t, cenv, "cat", filepath.Join(cons.dir, "v.txt")); out != "v1\n" {
					t.Fatalf("cat %d: %q", i, out)
				}
				if i == 0 {
					asked = cons.agent.Counters()["local_requests"]
				}
			}
			if c := cons.agent.Counters(); c["stages"] != 1 || c["local_requests"] != asked {
				t.Fatalf("consumer staged %d times, and the second cat asked its agent %d times; want 1 and 0", c["stages"], c["local_requests"]-asked)
			}
			_, serr := os.Stat(filepath.Join(cons.dir, ".couplet", "meta", "v.txt.meta"))
			if attr := dyad.HasStagedAttr(filepath.Join(cons.dir, "v.txt")); attr != (tc.name == "attribute") || (serr == nil) == attr {
				t.Fatalf("record in the attribute: %v, sidecar: %v; want the %s", attr, serr, tc.name)
			}
		})
	}
}

// TestPreloadFsyncAndDTL: with DYAD_FSYNC_WRITE the producer's close fsyncs before it
// publishes; the consumer's DYAD_DTL_MODE=UCX travels with its staging request, and its
// agent (configured for rpc) fetches over UCX.
func TestPreloadFsyncAndDTL(t *testing.T) {
	prod, cons := twoNodes(t, func(o *agent.Options) { o.DTL, o.UCXTLS = "rpc", "tcp" })
	consPath := filepath.Join(cons.dir, "u.bin")
	py := start(t, preload(t, consumerEnv(t, cons, "DYAD_DTL_MODE=UCX")), "/usr/bin/python3", "-c",
		"import sys; sys.stdout.write(open(sys.argv[1]).read())", consPath)
	awaitWaiting(t, cons, 1, py, consPath)
	p := start(t, preload(t, producerEnv(t, prod, "DYAD_FSYNC_WRITE=1", "DYAD_SYNC_DEBUG=1")), "bash", "-c",
		`echo "over ucx" > "$1"`, "_", filepath.Join(prod.dir, "u.bin"))
	p.wait(t, time.Minute)
	if log := p.errb.String(); !strings.Contains(log, "fsync'd descriptor") || !strings.Contains(log, "produced u.bin") {
		t.Fatalf("producer log does not show the fsync before the publish:\n%s", log)
	}
	if out := py.wait(t, 2*time.Minute); out != "over ucx\n" {
		t.Fatalf("consumer read %q", out)
	}
	if c := prod.agent.Counters(); c["ucx_fetches_served"] != 1 {
		t.Fatalf("producer agent counters %v: want the fetch over UCX", c)
	}
}
