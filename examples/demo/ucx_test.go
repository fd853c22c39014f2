package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
)

// TestSeparateLaunchesOverUCX runs heat and analyze as two independent
// mpiruns, each with its own MPI_COMM_WORLD, meeting in an etcd and moving
// data over UCX: in both start orders, over TCP and over shared memory, with
// the same verification as the one-mpirun coupling.
func TestSeparateLaunchesOverUCX(t *testing.T) {
	etcd, err := embedded.Start(embedded.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer etcd.Close()
	for _, tls := range []string{"tcp", "sm"} {
		for _, first := range []string{"heat", "analyze"} {
			t.Run(tls+"/"+first+"-first", func(t *testing.T) {
				j := testJob(t)
				j.config = filepath.Join(t.TempDir(), "couple.ini")
				stats := filepath.Join(t.TempDir(), "stats.jsonl")
				cfg := strings.Replace(configText(config.ModeTransfer, stats), "timeout = 60s\n",
					"timeout = 60s\ntransport = ucx\nkvs = "+etcd.Endpoint()+"\n", 1)
				if err := os.WriteFile(j.config, []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
				env := []string{"UCX_TLS=" + tls, "COUPLET_JOB=" + strings.ReplaceAll(t.Name(), "/", "-")}
				apps := j.apps()
				apps[0].Env = append(env, "COUPLET_COMPONENT=heat")
				apps[1].Env = append(env, "COUPLET_COMPONENT=analyze")
				if first == "analyze" {
					apps[0], apps[1] = apps[1], apps[0]
				}
				// The second job starts late: the first must wait for it.
				outs := mpitest.LaunchApart(2*time.Minute, 2*time.Second, apps...)
				for i, r := range outs {
					if r.Err != nil {
						t.Fatalf("%s: %v after %v; output:\n%s", apps[i].Prog, r.Err, r.Elapsed.Round(time.Millisecond), r.Output)
					}
				}
				mpitest.NoUCXWarnings(t, outs...)
				ana := outs[1].Output
				if first == "analyze" {
					ana = outs[0].Output
				}
				wantVerified(t, j, ana, true)
				if _, err := checkTransfer(j, stats); err != nil {
					t.Error(err)
				}
			})
		}
	}
}
