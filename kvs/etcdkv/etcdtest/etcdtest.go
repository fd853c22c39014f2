// Package etcdtest starts a real external etcd server (Debian's /usr/bin/etcd) for tests.
package etcdtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/kvs/etcdkv"
)

// Binary is the etcd server executable used by StartExternal.
const Binary = "/usr/bin/etcd"

// Server is an external etcd server run by a test, on free loopback ports and a data
// directory of the test's. It can be stopped and started again on the same ports and
// data, as an operator restarting etcd would.
type Server struct {
	// Endpoint is the client address, "127.0.0.1:port".
	Endpoint string
	t        testing.TB
	peer     string
	dir      string
	cmd      *exec.Cmd
	log      *os.File
}

// StartExternal runs etcd on free loopback ports in a temporary directory and returns its
// client endpoint. The test is skipped only when the etcd binary is absent; the server is
// stopped when the test ends.
func StartExternal(t testing.TB) string {
	return StartServer(t).Endpoint
}

// StartServer is StartExternal returning the server, to stop and restart it.
func StartServer(t testing.TB) *Server {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Skipf("external etcd: %s not installed", Binary)
	}
	client, err := etcdkv.FreeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	peer, err := etcdkv.FreeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Endpoint: client, t: t, peer: peer, dir: t.TempDir()}
	t.Cleanup(s.Stop)
	s.Start()
	return s
}

// Start starts the server (again) and returns once it answers.
func (s *Server) Start() {
	t := s.t
	t.Helper()
	cmd := exec.Command(Binary,
		"--name", "ext", "--data-dir", s.dir+"/data",
		"--listen-client-urls", "http://"+s.Endpoint, "--advertise-client-urls", "http://"+s.Endpoint,
		"--listen-peer-urls", "http://"+s.peer, "--initial-advertise-peer-urls", "http://"+s.peer,
		"--initial-cluster", "ext=http://"+s.peer,
		"--heartbeat-interval", "10", "--election-timeout", "100", "--log-level", "error")
	log, err := os.OpenFile(s.dir+"/etcd.log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("start %s: %v", Binary, err)
	}
	s.cmd, s.log = cmd, log
	// Wait for it to answer, backing off; Dial itself bounds each attempt.
	deadline := time.Now().Add(20 * time.Second)
	for delay := 20 * time.Millisecond; ; delay *= 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := etcdkv.Dial(ctx, []string{s.Endpoint})
		cancel()
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(s.dir + "/etcd.log")
			t.Fatalf("external etcd did not answer: %v\n%s", err, out)
		}
		time.Sleep(min(delay, 500*time.Millisecond))
	}
}

// Stop kills the server and waits for it to exit; its data directory stays.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.log.Close()
	s.cmd = nil
}
