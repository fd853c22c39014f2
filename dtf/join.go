package dtf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/couplet-hpc/couplet/kvs"
	_ "github.com/couplet-hpc/couplet/kvs/etcdkv" // the etcd:// store
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport/mpitransport"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

// joinWorld connects this process to every component through the configured
// transport and makes its component's communicator.
func (e *engine) joinWorld() error {
	if e.cfg.Transport == TransportUCX {
		return e.joinUCX()
	}
	t, err := mpitransport.Join(e.comp, e.cfg.NComp, e.cfg.Timeout)
	if err != nil {
		return err
	}
	e.tr, e.compRanks = t, t.Components()
	e.comm, err = mpi.World().Split(e.comp, t.Rank())
	return err
}

// joinUCX connects separately launched components: each launch is one
// component whose MPI_COMM_WORLD is its own, and the components meet in the
// KVS under COUPLET_JOB (set it to a value unique to the run, such as the
// batch job id). A component that starts first waits for the others up to
// the timeout, then fails naming the one missing.
func (e *engine) joinUCX() error {
	if len(e.cfg.KVS) == 0 {
		return errors.New("dtf: transport = ucx needs the KVS where separate launches meet: set kvs = host:port in [INFO] or COUPLET_KVS")
	}
	url := strings.Join(e.cfg.KVS, ",")
	if !strings.Contains(url, "://") {
		url = "etcd://" + url
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
	defer cancel()
	kv, err := kvs.Open(ctx, url)
	if err != nil {
		return fmt.Errorf("dtf: KVS %s: %w", url, err)
	}
	if e.comm, err = mpi.World().Dup(); err != nil {
		kv.Close()
		return err
	}
	job := os.Getenv("COUPLET_JOB")
	if job == "" {
		job = "default"
	}
	t, err := ucxtransport.Join(ctx, ucxtransport.Options{KV: kv, Namespace: "couplet/dtf/" + job,
		Components: e.cfg.CompNames, Comp: e.comp, Comm: e.comm, Timeout: e.cfg.Timeout})
	if err != nil {
		kv.Close()
		return err
	}
	e.tr, e.compRanks, e.kv = t, t.Components(), kv
	return nil
}
