package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/pki"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	var o agent.Options
	var readyFile string
	cmd := &cobra.Command{
		Use:   "agent [PRODUCER_DIR]",
		Short: "run the per-node file-staging agent (DYAD's broker module)",
		Long: `Runs the node agent: it serves files under PRODUCER_DIR to other agents over the
rpc DTL, serves local dyad clients on a Unix socket, keeps the node's metadata cache, and
hosts an embedded etcd (default) or joins one with --kvs etcd://host:port,...

The producer directory defaults to $DYAD_PATH_PRODUCER. The socket is
$COUPLET_AGENT_SOCKET if set, else PRODUCER_DIR/.couplet/agent.sock, or, when that
path is too long for a socket, $XDG_RUNTIME_DIR/couplet/HASH.sock (without
XDG_RUNTIME_DIR: /tmp/couplet-UID/HASH.sock); clients derive the same path from
their managed directory. An agent refuses to start on a socket that another agent
answers on.

Peers prove they hold the cluster token (a challenge-response; the token never crosses
the wire). Give it with --token-file (mode 0600) or $COUPLET_AGENT_TOKEN, never on the
command line, where every local user could read it. Without one, a token is generated
into STATE_DIR/token on first start; other agents of this user on this node join with
--token-file pointing at it. Listening on a non-loopback address requires an explicit
token. A token has at least 16 bytes.`,
		Args: needArgs(0, 1, "nothing"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.ProducerDir = args[0]
			}
			if o.ProducerDir == "" {
				o.ProducerDir = os.Getenv("DYAD_PATH_PRODUCER")
			}
			if o.ProducerDir == "" {
				return fmt.Errorf("agent: give the producer directory as an argument or DYAD_PATH_PRODUCER")
			}
			if o.TokenFile == "" {
				o.Token = os.Getenv("COUPLET_AGENT_TOKEN")
			}
			a, err := agent.Start(o)
			if err != nil {
				return err
			}
			defer a.Close()
			fmt.Fprintf(os.Stderr, "couplet agent: rpc DTL on %s, socket %s, kvs %s\n", a.Addr(), a.Socket(), a.KVSEndpoint())
			if readyFile != "" {
				// Written atomically so a launcher polling for it never reads half a line.
				tmp := readyFile + ".tmp"
				line := fmt.Sprintf("addr=%s\nsocket=%s\nkvs=%s\n", a.Addr(), a.Socket(), a.KVSEndpoint())
				if err := os.WriteFile(tmp, []byte(line), 0o644); err != nil {
					return err
				}
				if err := os.Rename(tmp, readyFile); err != nil {
					return err
				}
				defer os.Remove(readyFile)
			}
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
			<-sig
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "127.0.0.1:0", "TCP address of the rpc DTL (non-loopback needs --token-file or COUPLET_AGENT_TOKEN)")
	f.StringVar(&o.Advertise, "advertise", "", "address published as the owner of produced files (default: the listen address)")
	f.StringVar(&o.Socket, "socket", "", "Unix socket for local clients (default $COUPLET_AGENT_SOCKET, else PRODUCER_DIR/.couplet/agent.sock)")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the cluster token, mode 0600 (or COUPLET_AGENT_TOKEN; default: generated into the state dir)")
	f.StringVar(&o.KVS, "kvs", "", "join an etcd cluster (etcd://host:port,...) instead of embedding one")
	f.StringVar(&o.StateDir, "state-dir", "", "agent state (default PRODUCER_DIR/.couplet/agent)")
	f.StringVar(&o.EtcdClient, "etcd-client", "", "embedded etcd client address (default a free loopback port)")
	f.StringVar(&o.EtcdPeer, "etcd-peer", "", "embedded etcd peer address (default a free loopback port)")
	f.StringVarP(&o.DTL, "dtl", "m", "", "data transport layer: rpc (FLUX_RPC) or ucx; default DYAD_DTL_MODE, else rpc (margo is not available here)")
	f.BoolVarP(&o.Debug, "debug", "d", false, "log every request")
	f.StringVarP(&o.InfoLog, "info-log", "i", "", "info log file")
	f.StringVarP(&o.ErrorLog, "error-log", "e", "", "error log file")
	// The DYAD module's spellings of the same options.
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name {
		case "mode":
			name = "dtl"
		case "info_log":
			name = "info-log"
		case "error_log":
			name = "error-log"
		}
		return pflag.NormalizedName(name)
	})
	f.IntVar(&o.ChunkSize, "chunk", 0, "largest chunk in bytes (0: the DTL's default)")
	f.DurationVar(&o.ChunkDelay, "chunk-delay", 0, "sleep after each served chunk (throttling for demos)")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", 30*time.Second, "end a transfer whose peer is silent this long")
	f.Int64Var(&o.MaxFileSize, "max-file-size", 0, "refuse to stage files larger than this many bytes (0: no cap)")
	f.Int64Var(&o.MinFree, "min-free", 0, "free bytes a staging must leave on the destination file system")
	f.BoolVar(&o.RefuseHardLinks, "refuse-hard-links", false, "refuse to serve files with more than one hard link")
	f.IntVar(&o.MaxConns, "max-conns", 0, "connections served at once (0: 4096, less with a low RLIMIT_NOFILE)")
	f.DurationVar(&o.PreAuthTimeout, "pre-auth-timeout", 5*time.Second, "time a new connection has to authenticate and send its request")
	f.DurationVar(&o.LeaseTTL, "lease-ttl", 10*time.Second, "life of the agent's liveness lease in the KVS: consumers learn that a dead agent's files are gone within it")
	f.DurationVar(&o.KVSTimeout, "kvs-timeout", 10*time.Second, "bound on each KVS read or write done for a local client")
	f.StringVar(&o.ClusterDir, "cluster-dir", "", "cluster directory from `couplet agent init-cluster`: the embedded etcd serves TLS to its members only, and the agent joins an etcd with its certificate (default STATE_DIR/cluster, created on first start)")
	f.BoolVar(&o.InsecureKVS, "insecure-kvs", false, "allow joining a non-loopback etcd without TLS client certificates or etcd auth")
	f.StringVar(&readyFile, "ready-file", "", "write addr/socket/kvs here once serving")
	var hosts []string
	initCmd := &cobra.Command{
		Use:   "init-cluster DIR",
		Short: "create a cluster directory: a CA and the member certificate the agents' etcd speaks TLS with",
		Long: `Creates DIR (mode 0700) holding a new certificate authority and one member certificate
and key (mode 0600), valid for loopback, this host and every --host. Give the same
directory (a copy, kept 0700) to every agent of the cluster with --cluster-dir: the
embedded etcd then serves only clients presenting the member certificate, and agents
joining it present it.`,
		Args: needArgs(1, 1, "the cluster directory DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := pki.Init(args[0], hosts...)
			if err != nil {
				return err
			}
			fmt.Printf("cluster directory %s: %s, %s, %s\n", d, pki.CAFile, pki.CertFile, pki.KeyFile)
			return nil
		},
	}
	initCmd.Flags().StringSliceVar(&hosts, "host", nil, "another host name or IP the etcd of this cluster is reached at (repeatable)")
	cmd.AddCommand(initCmd)
	root.AddCommand(cmd)
}
