package agent

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"time"

	"github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/pki"
)

// openKVS joins the configured etcd, or starts the embedded one. The embedded etcd
// speaks TLS only and serves only clients presenting a certificate of the cluster CA.
func (a *Agent) openKVS() error {
	ctx, cancel := context.WithTimeout(a.ctx, 20*time.Second)
	defer cancel()
	if a.opts.KVS != "" {
		cfg, err := a.joinConfig(a.opts.KVS)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		s, err := etcdkv.DialConfig(ctx, cfg)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		a.kv = s
		return nil
	}
	if a.opts.ClusterDir == "" {
		a.opts.ClusterDir = filepath.Join(a.opts.StateDir, "cluster")
	}
	d := pki.Dir(a.opts.ClusterDir)
	if !d.Exists() {
		if _, err := pki.Init(a.opts.ClusterDir); err != nil {
			return fmt.Errorf("agent: %w", err)
		}
	}
	// etcd's warnings and errors go into the agent's log, marked component=etcd.
	ec := embedded.Config{Dir: a.opts.EtcdDir, ClientAddr: a.opts.EtcdClient, PeerAddr: a.opts.EtcdPeer, Cluster: a.opts.ClusterDir,
		Logger: a.log, LogLevel: "warn"}
	e, err := embedded.Start(ec)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	a.etcd = e
	t, err := d.ClientTLS()
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	s, err := etcdkv.DialConfig(ctx, etcdkv.Config{Endpoints: []string{e.Endpoint()}, TLS: t})
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	a.kv = s
	return nil
}

// joinConfig reads the URL of an etcd to join. Without credentials in the URL, the
// agent's cluster directory (when given) supplies them. An etcd off loopback without a
// client certificate or etcd auth is refused unless InsecureKVS.
func (a *Agent) joinConfig(raw string) (etcdkv.Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return etcdkv.Config{}, fmt.Errorf("bad store URL %q: %w", raw, err)
	}
	if u.Scheme != "etcd" {
		return etcdkv.Config{}, fmt.Errorf("store URL %q: the agent joins etcd:// stores", raw)
	}
	q := u.Query()
	if a.opts.ClusterDir != "" && q.Get("cluster") == "" && q.Get("cert") == "" && q.Get("ca") == "" {
		q.Set("cluster", a.opts.ClusterDir)
		u.RawQuery = q.Encode()
	}
	cfg, err := etcdkv.ConfigFromURL(u)
	if err != nil {
		return cfg, err
	}
	if !cfg.Secured() && !a.opts.InsecureKVS {
		for _, ep := range cfg.Endpoints {
			host, _, err := net.SplitHostPort(ep)
			if err != nil {
				host = ep
			}
			if ip := net.ParseIP(host); !(ip != nil && ip.IsLoopback()) && host != "localhost" {
				return cfg, fmt.Errorf("etcd at %s is not on loopback and the agent has no credentials for it: "+
					"give a cluster directory (--cluster-dir), TLS files (?ca=&cert=&key=) or etcd auth (user@host?password-file=), "+
					"or accept an open etcd with --insecure-kvs", ep)
			}
		}
	}
	return cfg, nil
}
