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

// StartExternal runs etcd on free loopback ports in a temporary directory and returns its
// client endpoint. The test is skipped only when the etcd binary is absent; the server is
// stopped when the test ends.
func StartExternal(t testing.TB) string {
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
	dir := t.TempDir()
	cmd := exec.Command(Binary,
		"--name", "ext", "--data-dir", dir+"/data",
		"--listen-client-urls", "http://"+client, "--advertise-client-urls", "http://"+client,
		"--listen-peer-urls", "http://"+peer, "--initial-advertise-peer-urls", "http://"+peer,
		"--initial-cluster", "ext=http://"+peer,
		"--heartbeat-interval", "10", "--election-timeout", "100", "--log-level", "error")
	log, err := os.Create(dir + "/etcd.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", Binary, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	// Wait for it to answer, backing off; Dial itself bounds each attempt.
	deadline := time.Now().Add(20 * time.Second)
	for delay := 20 * time.Millisecond; ; delay *= 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s, err := etcdkv.Dial(ctx, []string{client})
		cancel()
		if err == nil {
			s.Close()
			return client
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(dir + "/etcd.log")
			t.Fatalf("external etcd did not answer: %v\n%s", err, out)
		}
		time.Sleep(min(delay, 500*time.Millisecond))
	}
}
