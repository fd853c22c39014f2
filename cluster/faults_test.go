package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// etcdOneDown kills node 1's etcd member (the first endpoint every client
// tries): coupling across separate launches and staging carry on over the
// other two. The member then comes back.
func (e *env) etcdOneDown(t *testing.T) {
	e.etcd.Kill(0)
	t.Cleanup(func() { e.restartEtcd(t, 0) })
	e.couplingSeparateUCX(t, "one-member-down")
	e.stagingAcrossNodes(t, "rpc-one-member-down")
}

// restartEtcd brings member i back and waits until it is healthy.
func (e *env) restartEtcd(t *testing.T, members ...int) {
	for _, i := range members {
		if err := e.etcd.Start(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.etcd.WaitHealthy(90*time.Second, members...); err != nil {
		t.Fatal(err)
	}
}

// etcdQuorumLost kills two of the three members: publishing a file and
// waiting for one fail with a clear error within their timeout, never
// hang; once the members return, staging works again.
func (e *env) etcdQuorumLost(t *testing.T) {
	e.etcd.Kill(0)
	e.etcd.Kill(1)
	rel := "quorum/lost.bin"
	path := e.c.Nodes[0].Tmp(filepath.Join(prodDir, rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("written while etcd has no quorum\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		node int
		op   string
	}{{0, "produce"}, {2, "consume"}} {
		start := time.Now()
		out, err := e.dyadTimeout(c.node, "10s", time.Minute, "rpc", c.op, rel)
		took := time.Since(start)
		if err == nil {
			t.Fatalf("%s without etcd quorum succeeded:\n%s", c.op, out)
		}
		if strings.Contains(err.Error(), "still running") {
			t.Fatalf("%s without etcd quorum hung: %v", c.op, err)
		}
		t.Logf("%s without quorum failed after %v: %s", c.op, took.Round(time.Millisecond), lastLine(out))
	}
	if _, err := os.Stat(e.c.Nodes[2].Tmp(filepath.Join(consDir, rel))); err == nil {
		t.Errorf("node3 has %s although it was never published", rel)
	}
	e.couplingWithoutQuorum(t)
	start := time.Now()
	e.restartEtcd(t, 0, 1)
	t.Logf("quorum back in %v", time.Since(start).Round(time.Millisecond))
	e.stagingAcrossNodes(t, "rpc-after-quorum")
	e.couplingSeparateUCX(t, "after-quorum")
}

// couplingWithoutQuorum launches heat and analyze separately while etcd
// has no quorum: both fail with an error naming the rendezvous within
// their 10 s timeout.
func (e *env) couplingWithoutQuorum(t *testing.T) {
	job := "no-quorum"
	ini := e.coupleIni(t, "couple-ucx-"+job+".ini", "transport = ucx\nkvs = "+strings.TrimPrefix(e.etcd.Endpoints(), "etcd://")+"\n")
	if err := os.WriteFile(ini, []byte(strings.Replace(mustRead(t, ini), "timeout = 60s", "timeout = 10s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	heat, ana := e.startSeparateUCX(t, ini, job)
	for _, p := range []struct {
		name string
		proc *Proc
	}{{"heat", heat}, {"analyze", ana}} {
		err := p.proc.Wait(2 * time.Minute)
		if err == nil {
			t.Fatalf("%s coupled although etcd had no quorum:\n%s", p.name, tail(p.proc.Output(), 20))
		}
		if strings.Contains(err.Error(), "still running") {
			t.Fatalf("%s hung without etcd quorum: %v", p.name, err)
		}
		msg := lineWith(p.proc.Output(), p.name+": dtf")
		if msg == "" {
			t.Errorf("%s failed without dtf's error:\n%s", p.name, tail(p.proc.Output(), 20))
		}
		t.Logf("without quorum %s failed after %v: %s", p.name, time.Since(start).Round(time.Millisecond), msg)
	}
}

// dyadTimeout is dyad with COUPLET_DYAD_TIMEOUT set.
func (e *env) dyadTimeout(i int, kvsTimeout string, timeout time.Duration, dtl string, args ...string) (string, error) {
	old := e.dyadExtra
	e.dyadExtra = []string{"COUPLET_DYAD_TIMEOUT=" + kvsTimeout}
	defer func() { e.dyadExtra = old }()
	return e.dyad(i, timeout, dtl, args...)
}

// lastLine returns the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// nodeDiesMidTransfer kills every process of node 1 (its agent, its etcd
// member) while node 3 stages a file from it: the consumer fails with a
// clear error, no partial file is left, and once node 1 is back (etcd
// member, agent) staging works again.
func (e *env) nodeDiesMidTransfer(t *testing.T) {
	e.needAgents(t)
	// A throttled producer agent, so the transfer is surely under way.
	e.agents[0].Kill()
	e.startAgent(t, 0, "--chunk", "1048576", "--chunk-delay", "300ms")
	rel := "kill/big.bin"
	e.produce(t, 0, rel, 32<<20)
	env := e.dyadEnv("rpc")
	cons, err := e.c.Nodes[2].Start(env, e.bin["couplet"], "dyad", "consume", rel)
	if err != nil {
		t.Fatal(err)
	}
	dir := e.c.Nodes[2].Tmp(filepath.Join(consDir, filepath.Dir(rel)))
	deadline := time.After(90 * time.Second)
	for !partialIn(dir) {
		select {
		case <-cons.Done():
			t.Fatalf("consume ended before node1 died: %v\n%s", cons.Wait(0), cons.Output())
		case <-deadline:
			t.Fatalf("no transfer under way after 90s: %s", cons.Output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	killed := e.c.Nodes[0].KillAll()
	start := time.Now()
	err = cons.Wait(2 * time.Minute)
	took := time.Since(start)
	if err == nil {
		t.Fatalf("consume succeeded although node1 died mid-transfer:\n%s", cons.Output())
	}
	if strings.Contains(err.Error(), "still running") {
		t.Fatalf("consume hung after node1 died: %v", err)
	}
	t.Logf("killed %d processes of node1; the consumer failed after %v: %s", killed, took.Round(time.Millisecond), lastLine(cons.Output()))
	ents, _ := os.ReadDir(dir)
	for _, en := range ents {
		t.Errorf("node3 keeps %s after the failed transfer", en.Name())
	}
	// Node 1 reboots: its etcd member and its agent come back.
	start = time.Now()
	e.restartEtcd(t, 0)
	e.startAgent(t, 0)
	t.Logf("node1 back in %v", time.Since(start).Round(time.Millisecond))
	e.stagingAcrossNodes(t, "rpc-after-node-death")
}

// partialIn reports whether dir holds a staging's temporary file with
// bytes in it.
func partialIn(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, en := range ents {
		if strings.HasPrefix(en.Name(), ".couplet-tmp-") {
			if fi, err := en.Info(); err == nil && fi.Size() > 0 {
				return true
			}
		}
	}
	return false
}

// linkDownUp takes node 3's link down: its consume fails with a clear
// error within the timeout (its etcd member is cut off and the producer is
// unreachable). Once the link is back, the same consume succeeds.
func (e *env) linkDownUp(t *testing.T) {
	e.needAgents(t)
	rel := "link/field.bin"
	data := e.produce(t, 0, rel, 4<<20)
	lost := func(i int) int { return strings.Count(e.agents[i].Output(), "lost the liveness lease") }
	lostBefore := []int{lost(0), lost(1)}
	if err := e.c.Nodes[2].LinkDown(); err != nil {
		t.Fatal(err)
	}
	up := false
	t.Cleanup(func() {
		if !up {
			e.c.Nodes[2].LinkUp()
		}
	})
	start := time.Now()
	out, err := e.dyadTimeout(2, "10s", 2*time.Minute, "rpc", "consume", rel)
	took := time.Since(start)
	if err == nil {
		t.Fatalf("consume with node3's link down succeeded:\n%s", out)
	}
	if strings.Contains(err.Error(), "still running") {
		t.Fatalf("consume with node3's link down hung: %v", err)
	}
	t.Logf("link down: consume failed after %v: %s", took.Round(time.Millisecond), lastLine(out))
	if err := e.c.Nodes[2].LinkUp(); err != nil {
		t.Fatal(err)
	}
	up = true
	start = time.Now()
	if err := e.etcd.WaitHealthy(90*time.Second, 2); err != nil {
		t.Fatal(err)
	}
	t.Logf("link up: node3's etcd member healthy after %v", time.Since(start).Round(time.Millisecond))
	out, err = e.dyad(2, 2*time.Minute, "rpc", "consume", rel)
	if err != nil {
		t.Fatalf("consume after the link came back (%v after it): %v\n%s\nnode1 agent:\n%s\nnode3 agent:\n%s",
			time.Since(start).Round(time.Millisecond), err, out, tail(e.agents[0].Output(), 30), tail(e.agents[2].Output(), 30))
	}
	t.Logf("link up: staged after %v", time.Since(start).Round(time.Millisecond))
	// Nodes 1 and 2 kept quorum: their agents' leases must not have lapsed because
	// node 3's member, which their clients also use, was cut off.
	for i, before := range lostBefore {
		if n := lost(i) - before; n != 0 {
			t.Errorf("%s's agent lost its liveness lease %d times while only node3's link was down:\n%s", e.c.Nodes[i].Name, n, tail(e.agents[i].Output(), 20))
		}
	}
	e.wantStaged(t, 2, 0, rel, data)
}

// nodeDiesMidCoupling kills every process of node 3 (analyze's ranks and
// its mpirun, its etcd member, its agent) while heat on nodes 1 and 2
// couples with it over UCX: heat fails with dtf's error within its 30 s
// timeout instead of hanging. Node 3 then comes back. The timeout is short so
// that the failure is seen quickly, but not so short that a loaded machine
// (the cluster runs 7 ranks, 3 etcd members and 3 agents on 2 cores) trips it
// before node 3 dies.
func (e *env) nodeDiesMidCoupling(t *testing.T) {
	job := "node-dies"
	ini := e.coupleIni(t, "couple-ucx-"+job+".ini", "transport = ucx\nkvs = "+strings.TrimPrefix(e.etcd.Endpoints(), "etcd://")+"\n")
	if err := os.WriteFile(ini, []byte(strings.Replace(mustRead(t, ini), "timeout = 60s", "timeout = 30s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	long := func(args []string) []string { // 40 step files: still coupling when node 3 dies
		return append(args, "-steps", "400")
	}
	hEnv, aEnv := ucxEnv("heat", job), ucxEnv("analyze", job)
	heat, err := e.c.Nodes[0].Start(append(e.mpi, hEnv...), "mpirun",
		append(append([]string{"-np", "4", "--host", e.hosts(2, 0, 1)}, mpirunX(hEnv)...), append([]string{e.bin["heat"]}, long(heatArgs(ini))...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	ana, err := e.c.Nodes[2].Start(append(e.mpi, aEnv...), "mpirun",
		append(append([]string{"-np", "3", "--host", e.hosts(3, 2)}, mpirunX(aEnv)...), append([]string{e.bin["analyze"]}, long(analyzeArgs(ini))...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(3 * time.Minute)
	for !strings.Contains(ana.Output(), "step 0020: ") {
		select {
		case <-ana.Done():
			t.Fatalf("analyze ended before node3 died: %s\nheat: %s", tail(ana.Output(), 20), tail(heat.Output(), 20))
		case <-deadline:
			t.Fatalf("analyze verified no step in 3 minutes: %s\nheat: %s", tail(ana.Output(), 20), tail(heat.Output(), 20))
		case <-time.After(20 * time.Millisecond):
		}
	}
	killed := e.c.Nodes[2].KillAll()
	start := time.Now()
	err = heat.Wait(2 * time.Minute)
	took := time.Since(start)
	if err == nil {
		t.Fatalf("heat succeeded although its reader's node died:\n%s", tail(heat.Output(), 20))
	}
	if strings.Contains(err.Error(), "still running") {
		t.Fatalf("heat hung after its reader's node died: %v", err)
	}
	msg := lineWith(heat.Output(), "dtf:")
	if msg == "" {
		t.Errorf("heat's error does not come from dtf:\n%s", tail(heat.Output(), 20))
	}
	t.Logf("killed %d processes of node3; heat failed after %v: %s", killed, took.Round(time.Millisecond), msg)
	start = time.Now()
	e.restartEtcd(t, 2)
	e.startAgent(t, 2)
	t.Logf("node3 back in %v", time.Since(start).Round(time.Millisecond))
}

// mustRead returns the contents of path.
func mustRead(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
