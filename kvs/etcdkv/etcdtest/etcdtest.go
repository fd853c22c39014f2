// Package etcdtest starts a real external etcd server (Debian's /usr/bin/etcd) for tests.
package etcdtest

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/kvs/etcdkv"
)

// Binary is the etcd server executable used by StartExternal.
const Binary = "/usr/bin/etcd"

// Server is an external etcd server run by a test, on loopback ports (StableAddr) and a data
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
	copied   chan struct{} // closed once etcd's log is all in the file
}

// StartExternal runs etcd on loopback ports of its own (StableAddr) in a temporary directory and returns its
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
	s := &Server{Endpoint: StableAddr(t), t: t, peer: StableAddr(t), dir: t.TempDir()}
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
		"--heartbeat-interval", "10", "--election-timeout", "100", "--logger", "zap", "--log-level", "info")
	log, err := os.OpenFile(s.dir+"/etcd.log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// etcd's log goes through a pipe into the log file, watched for the line that says
	// the server serves clients: the event the start waits on.
	pr, pw, err := os.Pipe()
	if err != nil {
		log.Close()
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		log.Close()
		t.Fatalf("start %s: %v", Binary, err)
	}
	ready, copied := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(copied)
		defer pr.Close()
		r := bufio.NewReader(pr)
		for seen := false; ; {
			line, err := r.ReadBytes('\n')
			log.Write(line)
			if !seen && bytes.Contains(line, []byte(servingMsg)) {
				seen = true
				close(ready)
			}
			if err != nil {
				return
			}
		}
	}()
	s.cmd, s.log, s.copied = cmd, log, copied
	select {
	case <-ready:
	case <-copied:
		s.Stop()
		out, _ := os.ReadFile(s.dir + "/etcd.log")
		t.Fatalf("external etcd exited before serving clients:\n%s", out)
	case <-time.After(20 * time.Second):
		s.Stop()
		out, _ := os.ReadFile(s.dir + "/etcd.log")
		t.Fatalf("external etcd did not serve clients within 20 s:\n%s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := etcdkv.Dial(ctx, []string{s.Endpoint})
	if err != nil {
		s.Stop()
		out, _ := os.ReadFile(s.dir + "/etcd.log")
		t.Fatalf("external etcd said it serves clients but did not answer: %v\n%s", err, out)
	}
	c.Close()
}

// servingMsg is the message of etcd's log line (3.4, zap logger) once the client
// listener serves requests.
const servingMsg = `"msg":"serving client traffic insecurely`

// Stop kills the server and waits for it to exit; its data directory stays.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	<-s.copied
	s.log.Close()
	s.cmd = nil
}
