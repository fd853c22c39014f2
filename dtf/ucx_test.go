package dtf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
)

// ucxConfig writes a config for two separately launched components meeting
// in the etcd at endpoint.
func ucxConfig(t *testing.T, dir, endpoint string, fileKeys string) (cfg, statsPath string) {
	t.Helper()
	statsPath = filepath.Join(dir, "stats.jsonl")
	text := fmt.Sprintf("[INFO]\nncomp = 2\ncomp_name = w\ncomp_name = r\ntimeout = 20s\nnum_matchers = 2\ntransport = ucx\nkvs = %s\nstats_path = %s\n\n[FILE]\nfilename = %%.nc\ncomp1 = w\ncomp2 = r\n%s\n", endpoint, statsPath, fileKeys)
	cfg = filepath.Join(dir, "couple.ini")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, statsPath
}

func TestOverUCX(t *testing.T) {
	etcd, err := embedded.Start(embedded.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer etcd.Close()
	bin := mpitest.Build(t, prog)

	t.Run("replay and decompositions", func(t *testing.T) {
		dir := t.TempDir()
		cfg, statsPath := ucxConfig(t, dir, etcd.Endpoint(), "replay_io = 1")
		args := []string{"-cfg", cfg, "-dir", dir, "-case", "cycles", "-cycles", "4", "-wgrid", "2x2", "-rgrid", "3x1"}
		env := func(c string) []string {
			return []string{"COUPLET_COMPONENT=" + c, "UCX_TLS=tcp", "COUPLET_JOB=" + t.Name()}
		}
		rs := mpitest.LaunchApart(2*time.Minute, time.Second, mpitest.App{NP: 3, Prog: bin, Args: args, Env: env("r")}, mpitest.App{NP: 4, Prog: bin, Args: args, Env: env("w")})
		for _, r := range rs {
			if r.Err != nil {
				t.Fatalf("%v:\n%s", r.Err, r.Output)
			}
		}
		mpitest.NoUCXWarnings(t, rs...)
		f, err := os.Open(statsPath)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := stats.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		hits := map[string]int{}
		for _, r := range recs {
			if !strings.Contains(r.File, "cycle_000") {
				hits[r.Role+":"+string(r.Replay)]++
			}
		}
		if hits["writer:hit"] != 3*4 || hits["reader:hit"] != 3*3 {
			t.Fatalf("replay over UCX: outcomes after the first cycle %v, want every rank to hit", hits)
		}
	})

	t.Run("peer never starts", func(t *testing.T) {
		dir := t.TempDir()
		cfg, _ := ucxConfig(t, dir, etcd.Endpoint(), "")
		if err := os.WriteFile(cfg, []byte(strings.Replace(mustRead(t, cfg), "timeout = 20s", "timeout = 3s", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r := mpitest.Launch(time.Minute, mpitest.App{NP: 2, Prog: bin, Args: []string{"-cfg", cfg, "-dir", dir, "-case", "decomp"},
			Env: []string{"COUPLET_COMPONENT=w", "UCX_TLS=tcp", "COUPLET_JOB=" + t.Name()}})
		if r.Err == nil || r.TimedOut {
			t.Fatalf("a lone component did not fail cleanly (err %v, timed out %v):\n%s", r.Err, r.TimedOut, r.Output)
		}
		if !strings.Contains(r.Output, `"r"`) || time.Since(start) > 30*time.Second {
			t.Fatalf("the error should name the missing component \"r\" within the timeout; after %v:\n%s", time.Since(start), r.Output)
		}
	})
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
