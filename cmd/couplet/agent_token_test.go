package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startAgentCmd starts `couplet agent` as a process of its own and returns it once it
// serves, or its error output if it exits first.
func startAgentCmd(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	dir := t.TempDir()
	sockDir, err := os.MkdirTemp("", "agcmd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	args = append([]string{"agent", filepath.Join(dir, "prod"), "--socket", filepath.Join(sockDir, "s")}, args...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runMainEnv+"=1"), env...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		// The first line that is not a log record (the embedded etcd may warn first).
		r := bufio.NewReader(stderr)
		for {
			l, err := r.ReadString('\n')
			if err != nil || !strings.HasPrefix(l, "time=") {
				line <- l
				return
			}
		}
	}()
	select {
	case l := <-line:
		return cmd, l
	case <-time.After(60 * time.Second):
		t.Fatal("agent neither served nor failed in 60 s")
	}
	return nil, ""
}

// TestAgentTokenNotInArgv: the token comes from a 0600 file (or the environment), never
// from the command line that every local user can read in /proc/PID/cmdline.
func TestAgentTokenNotInArgv(t *testing.T) {
	const token = "cmdline-secret-7f3e91"
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	loose := filepath.Join(dir, "loose")
	os.WriteFile(good, []byte(token+"\n"), 0o600)
	os.WriteFile(loose, []byte(token+"\n"), 0o644)
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string // prefix of the first line on stderr
	}{
		{"token file", nil, []string{"--token-file", good}, "couplet agent: rpc DTL on"},
		{"environment", []string{"COUPLET_AGENT_TOKEN=" + token}, nil, "couplet agent: rpc DTL on"},
		{"readable token file", nil, []string{"--token-file", loose}, "couplet: agent: token file"},
		{"token in argv", nil, []string{"--token", token}, "couplet: unknown flag: --token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, line := startAgentCmd(t, c.env, c.args...)
			if !strings.HasPrefix(line, c.want) {
				t.Fatalf("agent said %q, want %q...", line, c.want)
			}
			if !strings.Contains(c.want, "rpc DTL") {
				return
			}
			argv, err := os.ReadFile("/proc/" + itoa(cmd.Process.Pid) + "/cmdline")
			if err != nil {
				t.Fatal(err)
			}
			if len(argv) == 0 || !bytes.Contains(argv, []byte("agent")) {
				t.Fatalf("cmdline %q is not the agent's", argv)
			}
			if bytes.Contains(argv, []byte(token)) {
				t.Errorf("the token is in /proc/PID/cmdline: %q", argv)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestInitCluster: `couplet agent init-cluster DIR` makes a 0700 directory whose key is
// 0600, and refuses to overwrite it.
func TestInitCluster(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	if _, _, err := runCouplet(t, "agent", "init-cluster", dir, "--host", "10.9.8.7", "--host", "node7"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "member-key.pem"): 0o600, filepath.Join(dir, "ca.pem"): 0o600} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %v", p, st.Mode().Perm(), err, want)
		}
	}
	if _, _, err := runCouplet(t, "agent", "init-cluster", dir); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("second init-cluster: %v, want a refusal", err)
	}
}
