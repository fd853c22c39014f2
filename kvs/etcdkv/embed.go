package etcdkv

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// EmbedConfig configures an embedded single-node etcd server.
type EmbedConfig struct {
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
	// StartTimeout bounds how long to wait for the server to be ready (default 20 s).
	StartTimeout time.Duration
}

// Embedded is a running embedded etcd server.
type Embedded struct {
	e        *embed.Etcd
	endpoint string
}

// StartEmbedded starts an embedded etcd server tuned for a fast start
// (TickMs 10, ElectionMs 100) with quiet logging.
func StartEmbedded(c EmbedConfig) (*Embedded, error) {
	if c.Dir == "" {
		return nil, fmt.Errorf("etcdkv: embedded etcd needs a data directory")
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("etcdkv: %w", err)
	}
	if c.Name == "" {
		c.Name = "couplet"
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 20 * time.Second
	}
	var err error
	if c.ClientAddr == "" {
		if c.ClientAddr, err = FreeLoopbackAddr(); err != nil {
			return nil, err
		}
	}
	if c.PeerAddr == "" {
		if c.PeerAddr, err = FreeLoopbackAddr(); err != nil {
			return nil, err
		}
	}
	cu := url.URL{Scheme: "http", Host: c.ClientAddr}
	pu := url.URL{Scheme: "http", Host: c.PeerAddr}
	cfg := embed.NewConfig()
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
	}
	cfg.LogOutputs = []string{"stderr"}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdkv: start embedded etcd in %s: %w", c.Dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcdkv: embedded etcd failed: %w", err)
	case <-time.After(c.StartTimeout):
		e.Server.Stop()
		e.Close()
		return nil, fmt.Errorf("etcdkv: embedded etcd not ready within %v", c.StartTimeout)
	}
	return &Embedded{e: e, endpoint: c.ClientAddr}, nil
}

// Endpoint returns the client address ("host:port") to Dial.
func (m *Embedded) Endpoint() string { return m.endpoint }

// Close stops the server.
func (m *Embedded) Close() error {
	m.e.Close()
	return nil
}

// FreeLoopbackAddr returns a loopback "host:port" that was free a moment ago.
func FreeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("etcdkv: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}
