package cluster

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Node-local staging directories and the agent's socket, in each node's
// private /tmp.
const (
	prodDir     = "/tmp/dyad/prod"
	consDir     = "/tmp/dyad/cons"
	agentSocket = "/tmp/couplet-agent.sock"
	agentReady  = "/tmp/couplet-agent.ready"
	agentPort   = "7700"
)

// agentEnv is what agents and dyad clients on a node share: UCX over TCP on
// the cluster network.
var agentEnv = []string{"UCX_TLS=tcp", "UCX_NET_DEVICES=eth0"}

// writeToken writes the cluster's shared agent token (mode 0600) into the
// work directory every node sees.
func (e *env) writeToken(t *testing.T) string {
	path := filepath.Join(e.c.Work, "agent.token")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	b := make([]byte, 24)
	rand.Read(b)
	if err := os.WriteFile(path, []byte(fmt.Sprintf("%x\n", b)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startAgent starts node i's couplet agent on its cluster address, joined
// to the etcd cluster, and waits until it serves.
func (e *env) startAgent(t *testing.T, i int, extra ...string) *Proc {
	t.Helper()
	n := e.c.Nodes[i]
	for _, d := range []string{prodDir, consDir} {
		if err := os.MkdirAll(n.Tmp(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(n.Tmp(agentReady))
	args := append([]string{"agent", "--listen", n.IP + ":" + agentPort, "--token-file", e.writeToken(t),
		// The cluster's etcd is Debian's, open on the cluster network: say so.
		"--kvs", e.etcd.Endpoints(), "--insecure-kvs", "--socket", agentSocket, "--ready-file", agentReady,
		"--state-dir", "/tmp/couplet-agent-state"}, extra...)
	args = append(args, prodDir)
	p, err := n.Start(agentEnv, e.bin["couplet"], args...)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(60 * time.Second)
	for {
		if _, err := os.Stat(n.Tmp(agentReady)); err == nil {
			break
		}
		select {
		case <-p.Done():
			t.Fatalf("agent on %s exited: %s", n.Name, tail(p.Output(), 20))
		case <-deadline:
			p.Kill()
			t.Fatalf("agent on %s not ready after 60s: %s", n.Name, tail(p.Output(), 20))
		case <-time.After(50 * time.Millisecond):
		}
	}
	e.agents[i] = p
	return p
}

// dyadEnv is a dyad client's environment on any node.
func (e *env) dyadEnv(dtl string) []string {
	env := append([]string{"DYAD_KVS_NAMESPACE=cluster", "DYAD_PATH_PRODUCER=" + prodDir, "DYAD_PATH_CONSUMER=" + consDir,
		"DYAD_PATH_RELATIVE=1", "COUPLET_AGENT_SOCKET=" + agentSocket, "DYAD_DTL_MODE=" + dtl,
		"COUPLET_DYAD_TIMEOUT=30s"}, agentEnv...)
	return append(env, e.dyadExtra...)
}

// dyad runs `couplet dyad ARGS` on node i against its agent.
func (e *env) dyad(i int, timeout time.Duration, dtl string, args ...string) (string, error) {
	return e.c.Nodes[i].Run(timeout, e.dyadEnv(dtl), e.bin["couplet"], append([]string{"dyad"}, args...)...)
}

// produce writes size random bytes to rel in node i's producer directory
// and publishes it.
func (e *env) produce(t *testing.T, i int, rel string, size int) []byte {
	t.Helper()
	data := make([]byte, size)
	rand.Read(data)
	path := e.c.Nodes[i].Tmp(filepath.Join(prodDir, rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := e.dyad(i, time.Minute, "rpc", "produce", rel); err != nil {
		t.Fatalf("produce %s on %s: %v\n%s", rel, e.c.Nodes[i].Name, err, out)
	}
	return data
}

// wantStaged checks that rel landed, whole, in node i's own consumer
// directory, and nowhere else but the producer's node.
func (e *env) wantStaged(t *testing.T, i, producer int, rel string, data []byte) {
	t.Helper()
	got, err := os.ReadFile(e.c.Nodes[i].Tmp(filepath.Join(consDir, rel)))
	if err != nil {
		t.Fatalf("%s: %v", e.c.Nodes[i].Name, err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%s: staged %s has %d bytes differing from the produced %d", e.c.Nodes[i].Name, rel, len(got), len(data))
	}
	for j, n := range e.c.Nodes {
		for _, d := range []string{prodDir, consDir} {
			if (j == i && d == consDir) || (j == producer && d == prodDir) {
				continue
			}
			if _, err := os.Stat(n.Tmp(filepath.Join(d, rel))); err == nil {
				t.Errorf("%s: %s is visible in %s", n.Name, rel, d)
			}
		}
	}
	if _, err := os.Stat(filepath.Join("/tmp/dyad", rel)); err == nil {
		t.Errorf("the host sees %s in its own /tmp", rel)
	}
}

// needAgents skips a case that reads the agents' output when agents-on-every-node did
// not start them (a -run filter left it out: t.Run reports a filtered case as passed).
func (e *env) needAgents(t *testing.T) {
	if len(e.agents) < len(e.c.Nodes) {
		t.Skip("needs the agents that agents-on-every-node starts; it did not run")
	}
}

// startAgents starts an agent on every node.
func (e *env) startAgents(t *testing.T) {
	for i := range e.c.Nodes {
		e.startAgent(t, i)
	}
}

// stagingAcrossNodes produces on node 1 and consumes on node 3 with the
// given DTL: the file lands in node 3's own /tmp.
func (e *env) stagingAcrossNodes(t *testing.T, name string) {
	dtl, _, _ := strings.Cut(name, "-")
	rel := "run/" + name + "/field.bin"
	data := e.produce(t, 0, rel, 16<<20)
	start := time.Now()
	out, err := e.dyad(2, time.Minute, dtl, "consume", rel)
	if err != nil {
		t.Fatalf("consume on node3 over %s: %v\n%s", dtl, err, out)
	}
	t.Logf("16 MiB staged node1 -> node3 over %s in %v (%s)", dtl, time.Since(start).Round(time.Millisecond), strings.TrimSpace(out))
	e.wantStaged(t, 2, 0, rel, data)
}
