package dtf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
)

// joinWorld makes this component's communicator for the launch mode and
// connects to every component over the configured transport, chosen by name
// from those linked into the program (transport.Register). Separately
// launched components meet in the KVS under COUPLET_JOB (set it to a value
// unique to the run, such as the batch job id); a component that starts
// first waits for the others up to the timeout, then fails naming the one
// missing.
func (e *engine) joinWorld() error {
	launch := e.cfg.Launched()
	if launch == config.LaunchSeparate && e.cfg.Transport == config.TransportMPI {
		return errors.New("dtf: separate launches share no MPI world: set transport = ucx")
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
	defer cancel()
	s := transport.Setup{Launch: transport.Launch(launch), Components: e.cfg.CompNames, Comp: e.comp, Timeout: e.cfg.Timeout}
	if launch == config.LaunchSeparate || e.cfg.Transport == config.TransportUCX {
		if err := e.openKVS(ctx); err != nil {
			return err
		}
		job := os.Getenv("COUPLET_JOB")
		if job == "" {
			job = "default"
		}
		s.KV, s.Namespace = e.kv, "couplet/dtf/"+job
	}
	// The component's communicator comes first: transports run their
	// collectives in it. In one mpirun it is the world split by component;
	// a separate launch is one component, so its world is the component.
	var err error
	if launch == config.LaunchMPMD {
		e.comm, err = mpi.World().Split(e.comp, mpi.World().Rank())
	} else {
		e.comm, err = mpi.World().Dup()
	}
	if err != nil {
		return e.abandonKVS(err)
	}
	s.Comm = e.comm
	t, err := transport.Open(ctx, string(e.cfg.Transport), s)
	if err != nil {
		return e.abandonKVS(fmt.Errorf("dtf: transport %s: %w", e.cfg.Transport, err))
	}
	e.tr, e.compRanks = t, t.Components()
	return nil
}

// openKVS connects to the configured KVS, whose backend the program links
// (for etcd: kvs/etcdkv, which transport/all brings).
func (e *engine) openKVS(ctx context.Context) error {
	if len(e.cfg.KVS) == 0 {
		return fmt.Errorf("dtf: transport = %s with launch = %s needs the KVS where ranks meet: set kvs = host:port in [INFO] or COUPLET_KVS", e.cfg.Transport, e.cfg.Launched())
	}
	url := strings.Join(e.cfg.KVS, ",")
	if !strings.Contains(url, "://") {
		url = "etcd://" + url
	}
	kv, err := kvs.Open(ctx, url)
	if err != nil {
		return fmt.Errorf("dtf: KVS %s: %w", url, err)
	}
	e.kv = kv
	return nil
}

// abandonKVS closes the KVS after a failed join and returns err.
func (e *engine) abandonKVS(err error) error {
	if e.kv != nil {
		e.kv.Close()
		e.kv = nil
	}
	return err
}
