// Package embedded runs a single-node etcd server inside the process. It links etcd's
// server (tens of packages and gRPC), so only what hosts the store imports it: the
// node agent, couplet commands that start etcd, and tests. Everything else reaches
// etcd through the client in kvs/etcdkv.
package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/pki"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Config configures an embedded single-node etcd server.
type Config struct {
	// Dir holds etcd's data; it persists, so metadata survives a restart.
	Dir string
	// ClientAddr and PeerAddr are "host:port" to listen on; empty means a free
	// loopback port.
	ClientAddr, PeerAddr string
	// Name is the member name (default "couplet").
	Name string
	// LogLevel is etcd's log level (default "fatal": etcd reports routine shutdown
	// noise at error level; startup failures still come back as errors).
	LogLevel string
	// Logger, when set, receives etcd's records at LogLevel and above (default "warn"
	// then), marked component=etcd, in place of etcd's JSON lines on stderr.
	Logger *slog.Logger
	// StartTimeout bounds how long to wait for the server to be ready (default 20 s).
	StartTimeout time.Duration
	// Cluster, when set, is a cluster directory (kvs/etcdkv/pki): the server then speaks
	// TLS only, on its client and peer ports, and serves only clients presenting a
	// certificate of the cluster CA.
	Cluster string
}

// Server is a running embedded etcd server.
type Server struct {
	e        *embed.Etcd
	endpoint string
	core     *slogCore
}

// Start starts an embedded etcd server tuned for a fast start
// (TickMs 10, ElectionMs 100) with quiet logging.
func Start(c Config) (*Server, error) {
	if c.Dir == "" {
		return nil, fmt.Errorf("etcd embedded: embedded etcd needs a data directory")
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("etcd embedded: %w", err)
	}
	if c.Name == "" {
		c.Name = "couplet"
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 20 * time.Second
	}
	// A port found free can be taken (by another server, or as the local port of any
	// outgoing connection) before etcd binds it: with ports of our own choosing, a bind
	// that fails so is retried on fresh ones.
	for attempt := 1; ; attempt++ {
		cc := c
		var picked []string
		for _, a := range []*string{&cc.ClientAddr, &cc.PeerAddr} {
			if *a == "" {
				var err error
				if *a, err = freeAddr(); err != nil {
					return nil, err
				}
				picked = append(picked, *a)
			}
		}
		s, err := start(cc)
		if err == nil || attempt == bindAttempts || !takenPort(err, picked) {
			return s, err
		}
	}
}

// takenPort reports whether err is a bind refused because one of the addresses picked
// was in use.
func takenPort(err error, picked []string) bool {
	var op *net.OpError
	return errors.Is(err, syscall.EADDRINUSE) && errors.As(err, &op) && op.Addr != nil && slices.Contains(picked, op.Addr.String())
}

// bindAttempts bounds the tries on fresh ports when a port found free was taken.
const bindAttempts = 5

// freeAddr finds a free loopback port; a variable so that a test can hand out a taken one.
var freeAddr = etcdkv.FreeLoopbackAddr

// start starts the server of c, whose addresses are set.
func start(c Config) (*Server, error) {
	scheme := "http"
	cfg := embed.NewConfig()
	if c.Cluster != "" {
		d := pki.Dir(c.Cluster)
		if err := d.Check(); err != nil {
			return nil, fmt.Errorf("etcd embedded: %w", err)
		}
		scheme = "https"
		ti := transport.TLSInfo{CertFile: d.Cert(), KeyFile: d.Key(), TrustedCAFile: d.CA(), ClientCertAuth: true}
		cfg.ClientTLSInfo, cfg.PeerTLSInfo = ti, ti
	}
	cu := url.URL{Scheme: scheme, Host: c.ClientAddr}
	pu := url.URL{Scheme: scheme, Host: c.PeerAddr}
	cfg.Name = c.Name
	cfg.Dir = c.Dir
	cfg.TickMs = 10
	cfg.ElectionMs = 100
	cfg.ListenClientUrls = []url.URL{cu}
	cfg.AdvertiseClientUrls = []url.URL{cu}
	cfg.ListenPeerUrls = []url.URL{pu}
	cfg.AdvertisePeerUrls = []url.URL{pu}
	cfg.InitialCluster = fmt.Sprintf("%s=%s", c.Name, pu.String())
	cfg.Logger = "zap"
	cfg.LogLevel = c.LogLevel
	if cfg.LogLevel == "" {
		cfg.LogLevel = "fatal"
		if c.Logger != nil {
			cfg.LogLevel = "warn"
		}
	}
	cfg.LogOutputs = []string{"stderr"}
	var core *slogCore
	if c.Logger != nil {
		var lvl zapcore.Level
		if err := lvl.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
			return nil, fmt.Errorf("etcd embedded: log level %q: %w", cfg.LogLevel, err)
		}
		core = newSlogCore(c.Logger.Handler(), lvl)
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.New(core))
	}
	// Warn of slow requests only (etcd's flag default; the zero value warns of all).
	cfg.WarningUnaryRequestDuration = embed.DefaultWarningUnaryRequestDuration
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd embedded: start embedded etcd in %s: %w", c.Dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd embedded: embedded etcd failed: %w", err)
	case <-time.After(c.StartTimeout):
		e.Server.Stop()
		e.Close()
		return nil, fmt.Errorf("etcd embedded: embedded etcd not ready within %v", c.StartTimeout)
	}
	return &Server{e: e, endpoint: c.ClientAddr, core: core}, nil
}

// Endpoint returns the client address ("host:port") to Dial.
func (m *Server) Endpoint() string { return m.endpoint }

// Close stops the server.
func (m *Server) Close() error {
	if m.core != nil {
		m.core.closing.Store(true)
	}
	m.e.Close()
	return nil
}
