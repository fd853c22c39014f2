package dyadlib

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/dyad/agent"
)

func pydyadDir() string { return filepath.Join(Dir(), "..", "..", "python", "pydyad") }

// startRuleNode starts an agent whose socket follows the agent socket rule
// (DIR/.couplet/agent.sock), so that clients find it without COUPLET_AGENT_SOCKET.
func startRuleNode(t *testing.T, kvsURL string) *node {
	t.Helper()
	n := &node{dir: filepath.Join(t.TempDir(), "m"), log: &syncBuf{}}
	n.socket = filepath.Join(n.dir, ".couplet", "agent.sock")
	if len(n.socket) >= 108 {
		t.Skipf("temporary directory %s too long for a socket path", n.dir)
	}
	a, err := agent.Start(agent.Options{ProducerDir: n.dir, Socket: n.socket, KVS: kvsURL, LogWriter: n.log, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	n.agent = a
	return n
}

// TestPydyad runs pydyad's pytest suite (Debian's python3 and pytest) against two
// agents standing for two nodes.
func TestPydyad(t *testing.T) {
	prod := startRuleNode(t, "")
	cons := startRuleNode(t, prod.agent.KVSEndpoint())
	spec, _ := json.Marshal(map[string]string{"namespace": namespace(t), "prod": prod.dir, "cons": cons.dir})
	cmd := exec.Command("/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", filepath.Join(pydyadDir(), "tests"))
	cmd.Env = append(baseEnv(), "PYDYAD_LIB="+lib(t), "PYDYAD_TEST_NODES="+string(spec), "PYTHONDONTWRITEBYTECODE=1")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pytest: %v\n%s\nproducer agent log:\n%s\nconsumer agent log:\n%s", err, out, prod.log.String(), cons.log.String())
	}
	if !strings.Contains(string(out), " passed") || strings.Contains(string(out), "skipped") {
		t.Fatalf("pytest output:\n%s", out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

// TestPydyadPipInstall installs pydyad with pip from a copy of the repository's package
// and imports the installed copy.
func TestPydyadPipInstall(t *testing.T) {
	src := filepath.Join(t.TempDir(), "pydyad")
	if out, err := exec.Command("cp", "-r", pydyadDir(), src).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	target := filepath.Join(t.TempDir(), "site")
	pip := exec.Command("/usr/bin/python3", "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
		"--target", target, src)
	pip.Env = append(baseEnv(), "PIP_DISABLE_PIP_VERSION_CHECK=1")
	if out, err := pip.CombinedOutput(); err != nil {
		t.Fatalf("pip install: %v\n%s", err, out)
	}
	imp := exec.Command("/usr/bin/python3", "-c", "import pydyad, sys; d = pydyad.Dyad(); print(pydyad.__file__); print(pydyad.dyad_open.__name__)")
	imp.Env = append(baseEnv(), "PYTHONPATH="+target, "PYDYAD_LIB="+lib(t))
	imp.Dir = t.TempDir()
	out, err := imp.CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], target) || lines[1] != "dyad_open" {
		t.Fatalf("installed pydyad: %q", out)
	}
}
