package dyad_test

import (
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad/agent"
)

// flood opens n idle connections to addr that never send a byte and returns them.
func flood(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("flood connection %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	return conns
}

// TestFetchDuringFlood holds 5,000 idle connections open against the producer's agent:
// a consumer's fetch still completes within a second, because the oldest connections that
// never authenticated make room for it.
func TestFetchDuringFlood(t *testing.T) {
	// The flood's 5,000 client ends and the agent's server ends live in this process.
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil && rl.Cur < 10000 {
		t.Skipf("RLIMIT_NOFILE %d: this process cannot hold both ends of 5,000 connections", rl.Cur)
	}
	prod, cons := pair(t)
	data := randBytes(1<<20, 11)
	produce(t, prod, "flood.bin", data)
	flood(t, prod.agent.Addr(), 5000)
	waitCounter(t, prod, "conns_accepted", 5000)
	start := time.Now()
	consumeCheck(t, cons, "flood.bin", data)
	if d := time.Since(start); d > time.Second {
		t.Errorf("fetch during a flood of 5000 connections took %v, want < 1 s", d)
	}
	t.Logf("fetch during the flood: %v; producer counters %v", time.Since(start), prod.agent.Counters())
}

// TestFloodExhaustingFDs runs the producer's agent with RLIMIT_NOFILE 256 and floods it
// with 600 idle connections, so that accept fails with EMFILE. Once the flood ends, a
// fetch succeeds: the accept loop retried instead of returning.
func TestFloodExhaustingFDs(t *testing.T) {
	t.Setenv(nofileEnv, "256")
	dir := t.TempDir()
	sock := sockPath(t)
	sub := startSubAgent(t, agent.Options{ProducerDir: dir, Token: testToken, Socket: sock, MaxConns: 100000})
	prod := &node{dir: dir, socket: sock, client: newClient(t, dir, sock, nil)}
	data := randBytes(256<<10, 12)
	produce(t, prod, "fd.bin", data)
	cons := startNode(t, sub.kvs, nil)
	conns := flood(t, sub.addr, 600)
	waitCounter(t, prod, "accept_errors", 1)
	for _, c := range conns {
		c.Close()
	}
	consumeCheck(t, cons, "fd.bin", data)
}

// nofileEnv sets the RLIMIT_NOFILE of an agent subprocess.
const nofileEnv = "COUPLET_DYAD_TEST_NOFILE"

// setNofile applies nofileEnv in an agent subprocess.
func setNofile() error {
	s := os.Getenv(nofileEnv)
	if s == "" {
		return nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return err
	}
	return setRlimitNofile(n)
}

func setRlimitNofile(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
}
