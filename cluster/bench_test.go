package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/bench"
)

// benchMiB is the size moved by both cluster benchmarks.
const benchMiB = 64

// benchCoupling runs the bench's exchange helper across nodes: four
// writers on nodes 1 and 2, two readers on node 3, so every byte crosses
// the TCP path between nodes, moved in interleaved rounds by raw MPI
// (subarray sends, the ideal) and by couplet (pnetcdf + dtf.Transfer).
func (e *env) benchCoupling(t *testing.T) {
	ini := filepath.Join(e.c.Work, "exchange.ini")
	if err := os.WriteFile(ini, []byte(bench.ExchangeConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-cfg", ini, "-dir", "/tmp", "-mib", strconv.Itoa(benchMiB), "-reps", "5", "-modes", "mpi,coupled"}
	all := append([]string{"-np", "4", "--host", e.hosts(2, 0, 1), e.bin["exchange"]}, args...)
	all = append(append(all, ":", "-np", "2", "--host", e.hosts(2, 2), e.bin["exchange"]), args...)
	out, err := e.c.Nodes[0].Run(5*time.Minute, e.mpi, "mpirun", all...)
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, tail(out, 30))
	}
	p, err := bench.ParseExchange(out, benchMiB)
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("cluster-bench: coupling %d MiB, 4 writers (node1, node2) -> 2 readers (node3), GB/s median (min-max) of %d: raw MPI %s, couplet %s, couplet/MPI %.2f",
		benchMiB, p.Reps, p.GBps[bench.ModeMPI].Format("%.3f"), p.GBps[bench.ModeCoupled].Format("%.3f"), p.CoupledVsMPI)
	fmt.Println(line)
	t.Log(line)
	e.perf = append(e.perf, fmt.Sprintf("| Array coupling, 4 writers (node1, node2) -> 2 readers (node3) | Open MPI ob1: TCP between nodes, vader within | %d MiB | %d | couplet (pnetcdf + dtf.Transfer) %s | raw MPI subarray send/recv %s | %.2f |",
		benchMiB, p.Reps, p.GBps[bench.ModeCoupled].Format("%.3f"), p.GBps[bench.ModeMPI].Format("%.3f"), p.CoupledVsMPI))
}

var (
	consumeTime = regexp.MustCompile(`\t(\S+)\s*$`)
	rawLine     = regexp.MustCompile(`RAW bytes=(\d+) seconds=([0-9.]+)`)
)

// rawReceiver takes one TCP stream into a file and times it from accept to
// end of stream.
const rawReceiver = `import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 7800)); s.listen(1)
print("listening", flush=True)
buf = bytearray(4 << 20); view = memoryview(buf)
c, _ = s.accept(); t0 = time.monotonic(); n = 0
with open(sys.argv[2], "wb") as f:
    while True:
        k = c.recv_into(buf)
        if not k:
            break
        f.write(view[:k]); n += k
print("RAW bytes=%d seconds=%.6f" % (n, time.monotonic() - t0), flush=True)
`

// rawSender streams a file to the receiver with sendfile.
const rawSender = `import socket, sys
s = socket.create_connection((sys.argv[1], 7800)); s.sendfile(open(sys.argv[2], "rb")); s.close()
`

// benchStaging stages a file from node 1 to node 3 with the rpc DTL and
// copies the same file over a raw TCP stream (Python's sendfile into a
// receiving file), three times each.
func (e *env) benchStaging(t *testing.T) {
	size := benchMiB << 20
	var dyad, raw []float64
	for rep := range 3 {
		rel := fmt.Sprintf("bench/f%d.bin", rep)
		data := e.produce(t, 0, rel, size)
		out, err := e.dyad(2, 2*time.Minute, "rpc", "consume", rel)
		if err != nil {
			t.Fatalf("consume: %v\n%s", err, out)
		}
		m := consumeTime.FindStringSubmatch(strings.TrimSpace(out))
		if m == nil {
			t.Fatalf("no time in consume's output %q", out)
		}
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatalf("consume's time %q: %v", m[1], err)
		}
		dyad = append(dyad, d.Seconds())
		e.wantStaged(t, 2, 0, rel, data)

		dst := fmt.Sprintf("/tmp/raw%d.bin", rep)
		recv, err := e.c.Nodes[2].Start(nil, "/usr/bin/python3", "-c", rawReceiver, e.c.Nodes[2].IP, dst)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.After(time.Minute)
		for !strings.Contains(recv.Output(), "listening") {
			select {
			case <-recv.Done():
				t.Fatalf("raw receiver exited: %s", recv.Output())
			case <-deadline:
				t.Fatalf("raw receiver not listening after 1 minute")
			case <-time.After(20 * time.Millisecond):
			}
		}
		if out, err := e.c.Nodes[0].Run(2*time.Minute, nil, "/usr/bin/python3", "-c", rawSender, e.c.Nodes[2].IP, filepath.Join(prodDir, rel)); err != nil {
			t.Fatalf("raw sender: %v\n%s", err, out)
		}
		if err := recv.Wait(time.Minute); err != nil {
			t.Fatalf("raw receiver: %v\n%s", err, recv.Output())
		}
		r := rawLine.FindStringSubmatch(recv.Output())
		if r == nil || r[1] != strconv.Itoa(size) {
			t.Fatalf("raw receiver got %q, want %d bytes", recv.Output(), size)
		}
		s, _ := strconv.ParseFloat(r[2], 64)
		raw = append(raw, s)
		os.Remove(e.c.Nodes[2].Tmp(dst))
	}
	gb := float64(size) / 1e9
	d, r := bench.Summarize(dyad).Rate(gb), bench.Summarize(raw).Rate(gb)
	line := fmt.Sprintf("cluster-bench: staging %d MiB node1 -> node3, GB/s median (min-max) of 3: dyad rpc DTL %s, raw TCP copy %s, dyad/raw %.2f",
		benchMiB, d.Format("%.3f"), r.Format("%.3f"), d.Median/r.Median)
	fmt.Println(line)
	t.Log(line)
	e.perf = append(e.perf, fmt.Sprintf("| File staging node1 -> node3 (consume on node3) | agents' rpc DTL vs one TCP stream (Python sendfile into a file) | %d MiB | 3 | dyad rpc DTL %s | raw TCP copy %s | %.2f |",
		benchMiB, d.Format("%.3f"), r.Format("%.3f"), d.Median/r.Median))
}

// writePerf puts the cluster's numbers into the PERFORMANCE.md named by
// COUPLET_CLUSTER_PERF (make cluster-bench), in the section the bench
// report carries over.
func (e *env) writePerf(t *testing.T, load string) {
	path := os.Getenv("COUPLET_CLUSTER_PERF")
	if path == "" || len(e.perf) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## Virtual cluster: coupling and staging across nodes\n\n", bench.KeptBegin)
	fmt.Fprintf(&b, "Measured by `make cluster-bench` (`cluster/bench_test.go`) on %s. The three nodes are\n", time.Now().UTC().Format(time.RFC3339))
	b.WriteString("Linux namespaces on this one host (own network stack, hostname, /tmp) joined by veth pairs to\n")
	b.WriteString("a bridge: between nodes is the kernel's TCP over veth, not a NIC, and all ranks share the 2 cores.\n")
	fmt.Fprintf(&b, "Load average at the start: %s. GB/s is 10^9 bytes per second, median (min–max).\n\n", load)
	b.WriteString("| What | Path | Size | reps | couplet | baseline | couplet / baseline |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range e.perf {
		b.WriteString(r + "\n")
	}
	b.WriteString(bench.KeptEnd)
	if err := bench.ReplaceKept(path, b.String()); err != nil {
		t.Error(err)
	}
}
