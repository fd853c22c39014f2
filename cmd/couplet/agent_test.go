package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/etcdtest"
)

// couplet runs the couplet command (this test binary in main mode) with args and the
// extra environment, and returns its exit status, standard error and run time.
func couplet(t *testing.T, env []string, args ...string) (code int, stderr string, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runMainEnv+"=1"), env...)
	var eb bytes.Buffer
	cmd.Stderr = &eb
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("couplet %v: %v", args, err)
	}
	return code, eb.String(), took
}

// shortDir is a temporary directory with a short path, for Unix sockets.
func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "cpl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestAgentStartFailures starts `couplet agent` where it cannot run: each attempt exits
// with status 1 and one line naming the cause, no panic, well within the time bound.
func TestAgentStartFailures(t *testing.T) {
	tmp := shortDir(t)
	// A port that nothing listens on: etcd there is unreachable.
	deadKVS := etcdtest.StableAddr(t)
	// A port held for the whole test: the agent cannot listen on it.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	notDir := filepath.Join(tmp, "file")
	os.WriteFile(notDir, []byte("x"), 0o644)
	// A live agent owns this socket; a second agent on it must leave it alone.
	liveSock := filepath.Join(tmp, "live.sock")
	live, err := agent.Start(agent.Options{ProducerDir: filepath.Join(tmp, "live"), Socket: liveSock, LogWriter: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	liveDir := filepath.Join(tmp, "live2")
	live2, err := agent.Start(agent.Options{ProducerDir: liveDir, KVS: live.KVSEndpoint(), LogWriter: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer live2.Close()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"kvs unreachable", []string{"agent", filepath.Join(tmp, "a"), "--kvs", "etcd://" + deadKVS}, deadKVS},
		{"port in use", []string{"agent", filepath.Join(tmp, "b"), "--listen", busy.Addr().String()}, "address already in use"},
		{"directory is a file", []string{"agent", notDir}, "not a directory"},
		{"directory under a file", []string{"agent", filepath.Join(notDir, "sub")}, "not a directory"},
		{"socket of a live agent", []string{"agent", filepath.Join(tmp, "c"), "--socket", liveSock}, "agent already running at " + liveSock},
		{"default socket of a live agent", []string{"agent", liveDir}, "agent already running at " + live2.Socket()},
		{"bad listen address", []string{"agent", filepath.Join(tmp, "d"), "--listen", "nowhere"}, "bad listen address"},
		{"unknown dtl", []string{"agent", filepath.Join(tmp, "e"), "-m", "carrier-pigeon"}, "unknown DTL mode"},
		// The DYAD module's option spellings reach the same options.
		{"unknown dtl (--mode)", []string{"agent", filepath.Join(tmp, "f"), "--mode", "carrier-pigeon"}, "unknown DTL mode \"carrier-pigeon\""},
		{"info log unwritable (--info_log)", []string{"agent", filepath.Join(tmp, "g"), "--info_log", filepath.Join(notDir, "info.log")}, "log file: open " + filepath.Join(notDir, "info.log") + ": not a directory"},
		{"error log unwritable (--error_log)", []string{"agent", filepath.Join(tmp, "h"), "--error_log", filepath.Join(notDir, "error.log")}, "log file: open " + filepath.Join(notDir, "error.log") + ": not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, took := couplet(t, []string{"COUPLET_AGENT_SOCKET="}, c.args...)
			line := strings.TrimRight(stderr, "\n")
			t.Logf("exit %d after %v: %s", code, took.Round(time.Millisecond), line)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			if !strings.HasPrefix(line, "couplet: ") || !strings.Contains(line, c.want) {
				t.Errorf("stderr %q does not say %q", line, c.want)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr shows a panic: %q", stderr)
			}
			if took > 30*time.Second {
				t.Errorf("took %v to fail", took)
			}
		})
	}
	// The agents whose sockets were tried still answer on them.
	for _, a := range []*agent.Agent{live, live2} {
		c, err := dyad.New(dyad.Config{Namespace: "t", ConsumerDir: tmp, AgentSocket: a.Socket(), Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Counters(context.Background()); err != nil {
			t.Errorf("agent at %s no longer reachable: %v", a.Socket(), err)
		}
	}
}
