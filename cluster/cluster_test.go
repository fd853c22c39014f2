package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// env is the whole virtual cluster of one test run: three nodes, etcd on
// each, the built programs, and an MPI launch environment.
type env struct {
	c    *Cluster
	etcd *Etcd
	mpi  []string
	bin  map[string]string

	agents    map[int]*Proc // each node's couplet agent
	dyadExtra []string      // more environment for dyad clients
	perf      []string      // PERFORMANCE.md rows of the benchmarks
}

// programs are built once into the shared work directory.
var programs = map[string]string{
	"couplet":  "github.com/couplet-hpc/couplet/cmd/couplet",
	"heat":     "github.com/couplet-hpc/couplet/examples/heat",
	"analyze":  "github.com/couplet-hpc/couplet/examples/analyze",
	"exchange": "github.com/couplet-hpc/couplet/bench/progs/exchange",
}

// results collects each case's outcome and time for the summary.
var results []string

// setup builds the programs and the cluster; everything is torn down when
// the test ends, whatever happens.
func setup(t *testing.T) *env {
	if os.Getenv("COUPLET_CLUSTER") == "" {
		t.Skip("the virtual cluster runs under make cluster-test (COUPLET_CLUSTER=1)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the virtual cluster needs root (network, UTS and mount namespaces, veth pairs): run make cluster-test as root")
	}
	// Not under /tmp: each node mounts its own /tmp.
	work, err := os.MkdirTemp("/var/tmp", "couplet-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	e := &env{bin: map[string]string{}, agents: map[int]*Proc{}}
	start := time.Now()
	for name, pkg := range programs {
		out := filepath.Join(work, "bin", name)
		if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
		e.bin[name] = out
	}
	t.Logf("built %d programs in %v", len(programs), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if e.c, err = New(3, work); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.c.Close)
	if e.mpi, err = e.c.MPIEnv(4); err != nil {
		t.Fatal(err)
	}
	if e.etcd, err = e.c.StartEtcd(filepath.Base(work), 60*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("3 nodes and a 3-member etcd up in %v", time.Since(start).Round(time.Millisecond))
	return e
}

// run runs one case as a subtest and records its outcome and time.
func run(t *testing.T, name string, f func(t *testing.T)) bool {
	start := time.Now()
	ok := t.Run(name, f)
	outcome := "PASS"
	if !ok {
		outcome = "FAIL"
	}
	line := fmt.Sprintf("cluster-test: %-44s %s  %6.1fs", name, outcome, time.Since(start).Seconds())
	results = append(results, line)
	fmt.Println(line)
	return ok
}

// TestCluster runs every multi-node case on one virtual cluster, in order.
func TestCluster(t *testing.T) {
	e := setup(t)
	t.Cleanup(func() {
		fmt.Println("cluster-test: summary")
		for _, r := range results {
			fmt.Println(r)
		}
	})
	run(t, "mpirun-across-nodes", e.mpirunAcrossNodes)
	run(t, "coupling-one-mpirun", e.couplingOneMPIRun)
	run(t, "coupling-separate-launches-ucx-tcp", func(t *testing.T) { e.couplingSeparateUCX(t, "separate") })
	if !run(t, "agents-on-every-node", e.startAgents) {
		return
	}
	run(t, "staging-across-nodes-rpc", func(t *testing.T) { e.stagingAcrossNodes(t, "rpc") })
	run(t, "staging-across-nodes-ucx", func(t *testing.T) { e.stagingAcrossNodes(t, "ucx") })
	load, _ := os.ReadFile("/proc/loadavg")
	run(t, "bench-coupling-vs-raw-mpi", e.benchCoupling)
	run(t, "bench-staging-vs-raw-tcp", e.benchStaging)
	e.writePerf(t, strings.Join(strings.Fields(string(load))[:3], " "))
	run(t, "fault-one-etcd-member-down", e.etcdOneDown)
	run(t, "fault-etcd-quorum-lost-and-back", e.etcdQuorumLost)
	run(t, "fault-link-down-then-up", e.linkDownUp)
	run(t, "fault-node-dies-mid-staging", e.nodeDiesMidTransfer)
	run(t, "fault-node-dies-mid-coupling", e.nodeDiesMidCoupling)
}

// mpirunAcrossNodes launches one rank per node from node 1 and checks each
// ran on its own node, with its own hostname.
func (e *env) mpirunAcrossNodes(t *testing.T) {
	hosts := []string{}
	for _, n := range e.c.Nodes {
		hosts = append(hosts, n.IP)
	}
	out, err := e.c.Nodes[0].Run(2*time.Minute, e.mpi, "mpirun", "-np", "3", "--host", strings.Join(hosts, ","), "hostname")
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	got := strings.Fields(out)
	want := map[string]bool{"node1": true, "node2": true, "node3": true}
	for _, h := range got {
		delete(want, h)
	}
	if len(got) != 3 || len(want) != 0 {
		t.Fatalf("hostnames %q, want node1, node2 and node3 once each", got)
	}
}

// coupleIni is the dtf config of heat and analyze; extra goes to [INFO].
func (e *env) coupleIni(t *testing.T, name, extra string) string {
	t.Helper()
	text := `[INFO]
ncomp = 2
comp_name = heat
comp_name = analyze
timeout = 60s
` + extra + `
[FILE]
filename = heat_%.nc
comp1 = heat
comp2 = analyze
mode = transfer
`
	path := filepath.Join(e.c.Work, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// heatArgs and analyzeArgs are a small coupled run: a 150x200 grid, four
// step files, read with another decomposition.
func heatArgs(config string) []string {
	return []string{"-config", config, "-out", "/tmp/out", "-nx", "150", "-ny", "200", "-steps", "40", "-every", "10"}
}

func analyzeArgs(config string) []string {
	return []string{"-config", config, "-out", "/tmp/out", "-steps", "40", "-every", "10"}
}

// wantVerified checks analyze's verdict on all four steps.
func wantVerified(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, "verification OK: 4 steps,") || strings.Contains(out, "FAILED") {
		t.Fatalf("analyze did not verify 4 steps:\n%s", tail(out, 40))
	}
	t.Log(lineWith(out, "verification OK: 4 steps"))
}

// lineWith returns the first line of out that contains s.
func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// noStepFiles checks that transfer mode left no file on any node.
func (e *env) noStepFiles(t *testing.T) {
	t.Helper()
	for _, n := range e.c.Nodes {
		if ents, _ := os.ReadDir(n.Tmp("/tmp/out")); len(ents) > 0 {
			t.Errorf("%s: transfer mode left %d files in /tmp/out", n.Name, len(ents))
		}
	}
}

// hosts lists node addresses with a slot count, for mpirun --host.
func (e *env) hosts(slots int, nodes ...int) string {
	var hs []string
	for _, i := range nodes {
		hs = append(hs, fmt.Sprintf("%s:%d", e.c.Nodes[i].IP, slots))
	}
	return strings.Join(hs, ",")
}

// couplingOneMPIRun runs heat on nodes 1 and 2 (two ranks each) and
// analyze on node 3 (three ranks) in one MPMD mpirun: data moves over
// TCP between nodes and shared memory within them.
func (e *env) couplingOneMPIRun(t *testing.T) {
	ini := e.coupleIni(t, "couple-mpi.ini", "")
	args := append([]string{"-np", "4", "--host", e.hosts(2, 0, 1), e.bin["heat"]}, heatArgs(ini)...)
	args = append(args, ":", "-np", "3", "--host", e.hosts(3, 2), e.bin["analyze"])
	args = append(args, analyzeArgs(ini)...)
	out, err := e.c.Nodes[0].Run(3*time.Minute, e.mpi, "mpirun", args...)
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, tail(out, 40))
	}
	wantVerified(t, out)
	e.noStepFiles(t)
}

// ucxEnv is the environment of a separately launched component: UCX over
// TCP on the cluster network, meeting the other in etcd under job.
func ucxEnv(comp, job string) []string {
	return []string{"COUPLET_COMPONENT=" + comp, "COUPLET_JOB=" + job, "UCX_TLS=tcp", "UCX_NET_DEVICES=eth0"}
}

// mpirunX returns mpirun's -x flags forwarding env to every rank.
func mpirunX(env []string) []string {
	var out []string
	for _, kv := range env {
		out = append(out, "-x", kv)
	}
	return out
}

// startSeparateUCX starts heat on nodes 1 and 2 and analyze on node 3 as two
// mpiruns of job that meet through the etcd cluster under config ini.
func (e *env) startSeparateUCX(t *testing.T, ini, job string) (heat, ana *Proc) {
	t.Helper()
	hEnv, aEnv := ucxEnv("heat", job), ucxEnv("analyze", job)
	var err error
	heat, err = e.c.Nodes[0].Start(append(e.mpi, hEnv...), "mpirun",
		append(append([]string{"-np", "4", "--host", e.hosts(2, 0, 1)}, mpirunX(hEnv)...), append([]string{e.bin["heat"]}, heatArgs(ini)...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	ana, err = e.c.Nodes[2].Start(append(e.mpi, aEnv...), "mpirun",
		append(append([]string{"-np", "3", "--host", e.hosts(3, 2)}, mpirunX(aEnv)...), append([]string{e.bin["analyze"]}, analyzeArgs(ini)...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	return heat, ana
}

// couplingSeparateUCX launches heat (nodes 1 and 2) and analyze (node 3)
// as two mpiruns that meet through the etcd cluster and move data over UCX
// on TCP.
func (e *env) couplingSeparateUCX(t *testing.T, job string) {
	ini := e.coupleIni(t, "couple-ucx-"+job+".ini", "transport = ucx\nkvs = "+strings.TrimPrefix(e.etcd.Endpoints(), "etcd://")+"\n")
	heat, ana := e.startSeparateUCX(t, ini, job)
	aErr, hErr := ana.Wait(3*time.Minute), heat.Wait(time.Minute)
	if aErr != nil || hErr != nil {
		t.Fatalf("analyze: %v\n%s\nheat: %v\n%s", aErr, tail(ana.Output(), 30), hErr, tail(heat.Output(), 30))
	}
	wantVerified(t, ana.Output())
	e.noStepFiles(t)
}
