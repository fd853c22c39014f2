package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
)

// TestTransferSeparateLaunches couples the unmodified writer.c and reader.c
// started as two independent mpiruns (each its own MPI_COMM_WORLD), linked
// and preloaded, through environment variables alone: the config, the
// component, the UCX transport and the KVS where the two jobs meet.
func TestTransferSeparateLaunches(t *testing.T) {
	etcd, err := embedded.Start(embedded.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer etcd.Close()
	for _, l := range loadings {
		for _, mode := range []string{"blocking", "nb"} {
			t.Run(l.name+"/"+mode, func(t *testing.T) {
				dir := t.TempDir()
				env := append(l.env(t), config(t, "transfer.ini"), "COUPLET_TRANSPORT=ucx", "COUPLET_KVS="+etcd.Endpoint(),
					"UCX_TLS=tcp", "COUPLET_JOB="+strings.ReplaceAll(t.Name(), "/", "-"))
				apps := []mpitest.App{
					{NP: 2, Prog: l.prog(t, "reader"), Env: append(env, "COUPLET_COMPONENT=reader"),
						Args: []string{filepath.Join(dir, "coupled.nc"), mode}},
					{NP: 4, Prog: l.prog(t, "writer"), Env: append(env, "COUPLET_COMPONENT=writer"),
						Args: []string{filepath.Join(dir, "coupled.nc"), filepath.Join(dir, "side.nc"), mode}},
				}
				// The reader starts first and waits for the writer.
				res := mpitest.LaunchApart(runTimeout, time.Second, apps...)
				for i, r := range res {
					if r.Err != nil {
						t.Fatalf("%s: %v\n%s", filepath.Base(apps[i].Prog), r.Err, r.Output)
					}
				}
				mpitest.NoUCXWarnings(t, res...)
				expectVerified(t, res[0].Output, "verified 120 values", 2)
				if _, err := os.Stat(filepath.Join(dir, "coupled.nc")); err == nil {
					t.Errorf("transfer mode wrote coupled.nc to disk")
				}
			})
		}
	}
}
