// Package agent is the per-node file-staging agent (`couplet agent`), the analogue of
// DYAD's Flux broker module. It serves fetches of files under its producer directory to
// other agents over TCP (the rpc DTL), serves local clients over a Unix socket (publish,
// lookup, wait, stage), holds the node-local metadata cache, and hosts an embedded etcd
// or joins an external one.
package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
)

// Options configure an agent; they mirror DYAD's module options where one exists.
type Options struct {
	// ProducerDir is the managed directory whose files the agent serves (DYAD's
	// positional producer path).
	ProducerDir string
	// Listen is the TCP address of the rpc DTL (default "127.0.0.1:0").
	Listen string
	// Advertise is the address published as the owner of produced files
	// (default: the listener's address).
	Advertise string
	// Socket is the Unix socket for local clients (default dyad.SocketFor(ProducerDir)).
	Socket string
	// Token is the cluster's shared secret: peers prove they hold it (challenge-response)
	// and it is never sent. An explicit Token or TokenFile is required when Listen is not
	// loopback; without one, a token is generated into StateDir/token (mode 0600).
	Token string `json:",omitempty"`
	// TokenFile holds the token (mode 0600 or stricter); used when Token is empty.
	TokenFile string
	// KVS is "" for an embedded etcd, or "etcd://host:port,..." to join a cluster.
	KVS string
	// ClusterDir is the cluster directory (`couplet agent init-cluster`): the CA and the
	// member certificate with which the embedded etcd serves TLS to clients presenting a
	// certificate of the CA, and with which the agent joins an etcd (default
	// StateDir/cluster, created on first start).
	ClusterDir string
	// InsecureKVS allows joining a non-loopback etcd without TLS client certificates or
	// etcd auth (anyone reaching it could read the records and deny service).
	InsecureKVS bool
	// EtcdDir is the embedded etcd's data directory (default StateDir/etcd).
	EtcdDir string
	// EtcdClient and EtcdPeer are the embedded etcd's addresses (default: free loopback ports).
	EtcdClient, EtcdPeer string
	// StateDir holds the agent's state (default ProducerDir/.couplet/agent).
	StateDir string
	// DTL is the transport this agent fetches with (DYAD -m): rpc (FLUX_RPC) or ucx (UCX);
	// empty means DYAD_DTL_MODE, else rpc. An agent serves peers over both.
	DTL string
	// UCXTLS is UCX_TLS for the ucx DTL (default: the UCX_TLS environment, else every
	// transport UCX finds). With only tcp, UCX also reports peer failures.
	UCXTLS string
	// UCXSlot and UCXSlots shape the window this agent registers to receive a file over
	// the ucx DTL (default 4 slots of 4 MiB); UCXSlot is also its largest put when serving.
	UCXSlot, UCXSlots int
	// Debug logs every request (DYAD -d).
	Debug bool
	// InfoLog and ErrorLog are log file paths (DYAD -i / -e); empty means stderr for
	// errors and, with Debug, for info.
	InfoLog, ErrorLog string
	// LogWriter, when set, receives both logs (tests).
	LogWriter io.Writer `json:"-"`
	// ChunkSize is the rpc DTL chunk (default 1 MiB); when set it also caps ucx puts.
	ChunkSize int
	// ChunkDelay throttles serving by sleeping after each chunk (demos and fault tests).
	ChunkDelay time.Duration
	// IdleTimeout ends a transfer whose peer sends nothing for this long (default 30 s).
	IdleTimeout time.Duration
	// Node names this node in metadata (default the host name).
	Node string
	// MaxConns caps the connections served at once over both listeners (default: 4096,
	// or less when RLIMIT_NOFILE is low). When full, the oldest connection that has not
	// yet authenticated and sent its request is closed to make room.
	MaxConns int
	// MaxFileSize caps the size of a file this agent stages (0: no cap). A larger
	// declared size is refused before any byte is written.
	MaxFileSize int64
	// MinFree is the free space a staging must leave on the destination's file system.
	MinFree int64
	// RefuseHardLinks refuses to serve a file with more than one hard link.
	RefuseHardLinks bool
	// PreAuthTimeout is how long a new connection has to authenticate and send its
	// request (default 5 s).
	PreAuthTimeout time.Duration
	// LeaseTTL is the life of the agent's liveness lease in the KVS (default 10 s): once
	// the agent dies, consumers of its files learn that it is gone within this time.
	LeaseTTL time.Duration
	// KVSTimeout bounds each KVS read or write done for a local client (default 10 s):
	// while the KVS does not answer, clients are told so within it.
	KVSTimeout time.Duration
	// SkipContentHash makes this agent stage without hashing what it receives: only the
	// record's signature and the size are checked, not the bytes. It exists so that
	// couplet bench can measure what the content hash adds to a staging, side by side
	// (see SetSkipContentHash); no command sets it, and nothing else should.
	SkipContentHash bool `json:"-"`
}

// Agent is a running agent.
type Agent struct {
	opts Options
	root *os.Root
	tcp  net.Listener
	unix net.Listener
	sock *localSocket
	kv   kvs.KV
	etcd *embedded.Server
	// log is the agent's structured log; info and errs feed it at info and error
	// level for the messages that are plain text.
	log     *slog.Logger
	info    *log.Logger
	errs    *log.Logger
	logs    []io.Closer
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	cache   *cache
	flights flights
	peers   peerPool
	ctr     counters
	// dtl is the transport of this agent's fetches; ucx its lazily started UCX node.
	dtl dyad.DTL
	ucx ucxState
	// chunkCap is ChunkSize when set explicitly (0 otherwise): the cap on ucx puts.
	chunkCap int64
	// gate bounds the connections of both listeners.
	gate gate
	// signKey signs and verifies metadata records (derived from the token).
	signKey []byte
	// contentKey makes and checks content tags (derived from the token).
	contentKey []byte
	// cacheStarted says that the cache's watch runs (Close waits for it).
	cacheStarted bool
	// internal holds the identities of the directories never served (internalDirs).
	internal []fileID
	// live is the agent's liveness lease and the records it owns (liveness.go).
	live liveness
	// owners follows the other agents' liveness keys (see ownerView).
	owners ownerView
	// started is when this agent started; swept holds the directories it has swept of
	// crashed stagings' temporary files (sweep.go).
	started time.Time
	swept   sweptDirs
	// skipHash is Options.SkipContentHash, as SetSkipContentHash last set it.
	skipHash atomic.Bool
}

// SetSkipContentHash turns the content hash off, or back on, for the stagings the agent
// starts from now on, as Options.SkipContentHash does from its start: couplet bench
// stages one file with it on and off in turn over the same agents, so that what the hash
// adds is not blurred by the differences between two pairs of agents. Nothing else
// should call it.
func (a *Agent) SetSkipContentHash(skip bool) { a.skipHash.Store(skip) }

type counters struct {
	fetchesServed, ucxFetchesServed, bytesServed, stages, stageBytes, rejected, unauthorized,
	publishes, cacheHits, cacheMisses, kvsWaits,
	connsAccepted, connsEvicted, connsRefused, acceptErrors, badSignatures, peerAuths, hashWaitNs,
	registrations, leasesLost, republished, ownersGone, localRequests, staleTemps atomic.Int64
}

// Start starts an agent and returns once it is serving.
func Start(o Options) (*Agent, error) {
	if o.ProducerDir == "" {
		return nil, errors.New("agent: a producer directory is required")
	}
	if o.DTL == "" {
		o.DTL = os.Getenv("DYAD_DTL_MODE")
	}
	dtl, err := dyad.ParseDTL(o.DTL)
	if err != nil {
		return nil, err
	}
	chunkCap := int64(o.ChunkSize)
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Socket == "" {
		s, err := dyad.SocketFor(o.ProducerDir)
		if err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		o.Socket = s
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = 1 << 20
	}
	if o.UCXSlot <= 0 {
		o.UCXSlot = defaultUCXSlot
	}
	if o.UCXSlots <= 0 {
		o.UCXSlots = defaultUCXSlots
	}
	if o.UCXSlot > wire.MaxSlot || o.UCXSlots > wire.MaxSlots {
		return nil, fmt.Errorf("agent: ucx window of %d slots of %d bytes exceeds %d of %d", o.UCXSlots, o.UCXSlot, wire.MaxSlots, wire.MaxSlot)
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 30 * time.Second
	}
	if o.Node == "" {
		o.Node, _ = os.Hostname()
	}
	if o.MaxConns <= 0 {
		o.MaxConns = defaultMaxConns()
	}
	if o.PreAuthTimeout <= 0 {
		o.PreAuthTimeout = 5 * time.Second
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 10 * time.Second
	}
	if o.KVSTimeout <= 0 {
		o.KVSTimeout = 10 * time.Second
	}
	if o.StateDir == "" {
		o.StateDir = filepath.Join(o.ProducerDir, ".couplet", "agent")
	}
	if o.EtcdDir == "" {
		o.EtcdDir = filepath.Join(o.StateDir, "etcd")
	}
	a := &Agent{opts: o, cache: newCache(), dtl: dtl, chunkCap: max(chunkCap, 0), started: time.Now()}
	a.skipHash.Store(o.SkipContentHash)
	a.swept.max = maxSweptDirs
	a.gate.max = o.MaxConns
	a.ctx, a.cancel = context.WithCancel(context.Background())
	if err := a.start(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// start brings the agent up in the order that fails fastest: logs, directories, the
// local socket and the TCP listener (each refused at once if taken), then the KVS
// (bounded by its dial timeout), then the cache and the serving loops.
func (a *Agent) start() error {
	o := &a.opts
	if err := a.openLogs(); err != nil {
		return err
	}
	if err := os.MkdirAll(o.ProducerDir, 0o755); err != nil {
		return fmt.Errorf("agent: producer directory: %w", err)
	}
	var err error
	if a.root, err = os.OpenRoot(o.ProducerDir); err != nil {
		return fmt.Errorf("agent: producer directory: %w", err)
	}
	if err := os.MkdirAll(o.StateDir, 0o700); err != nil {
		return fmt.Errorf("agent: state directory: %w", err)
	}
	a.internalDirs()
	if err := a.resolveToken(); err != nil {
		return err
	}
	a.signKey = signingKey(o.Token)
	a.contentKey = contentKey(o.Token)
	if a.sock, err = claimSocket(o.Socket); err != nil {
		return err
	}
	a.unix = a.sock.l
	if a.tcp, err = net.Listen("tcp", o.Listen); err != nil {
		return fmt.Errorf("agent: listen on %s: %w", o.Listen, err)
	}
	if o.Advertise == "" {
		o.Advertise = a.tcp.Addr().String()
	}
	if err := a.openKVS(); err != nil {
		return err
	}
	if err := a.register(); err != nil {
		return err
	}
	a.reclaim()
	a.cacheStarted = true
	if err := a.cache.start(a.ctx, a.kv, a.errs); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if a.tracksLiveness() {
		a.owners.start(a.ctx, a.kv)
	}
	if d, err := dtlFor(a.dtl); err != nil {
		return err
	} else if d.start != nil {
		if err := d.start(a); err != nil {
			return fmt.Errorf("agent: %w", err)
		}
	}
	a.wg.Add(3)
	go a.accept(a.tcp, a.serveRemote)
	go a.accept(a.unix, a.serveLocal)
	go a.keepRegistered()
	a.info.Printf("agent up: serving on %s (fetching over %s), socket %s, producer dir %s, kvs %s",
		o.Advertise, a.dtl, o.Socket, o.ProducerDir, a.KVSEndpoint())
	return nil
}

// Addr returns the address peers fetch from (the published owner address).
func (a *Agent) Addr() string { return a.opts.Advertise }

// Socket returns the Unix socket path for local clients.
func (a *Agent) Socket() string { return a.opts.Socket }

// KVSEndpoint returns the store the agent uses: the embedded etcd's
// "etcd://host:port?cluster=DIR" (which other agents join; DIR holds the credentials) or
// the configured URL.
func (a *Agent) KVSEndpoint() string {
	if a.etcd != nil {
		return "etcd://" + a.etcd.Endpoint() + "?cluster=" + url.QueryEscape(a.opts.ClusterDir)
	}
	return a.opts.KVS
}

// Counters returns the agent's counters by name.
func (a *Agent) Counters() map[string]int64 {
	c := &a.ctr
	return map[string]int64{
		"fetches_served": c.fetchesServed.Load(), "bytes_served": c.bytesServed.Load(),
		"stages": c.stages.Load(), "stage_bytes": c.stageBytes.Load(),
		"rejected": c.rejected.Load(), "unauthorized": c.unauthorized.Load(),
		"publishes": c.publishes.Load(), "cache_hits": c.cacheHits.Load(),
		"cache_misses": c.cacheMisses.Load(), "kvs_waits": c.kvsWaits.Load(),
		"ucx_fetches_served": c.ucxFetchesServed.Load(),
		"conns_accepted":     c.connsAccepted.Load(), "conns_evicted": c.connsEvicted.Load(),
		"conns_refused": c.connsRefused.Load(), "accept_errors": c.acceptErrors.Load(),
		"bad_signatures": c.badSignatures.Load(), "peer_auths": c.peerAuths.Load(),
		"hash_wait_ns":  c.hashWaitNs.Load(),
		"registrations": c.registrations.Load(), "leases_lost": c.leasesLost.Load(),
		"republished": c.republished.Load(), "owners_gone": c.ownersGone.Load(),
		"local_requests": c.localRequests.Load(), "stale_temps_removed": c.staleTemps.Load(),
	}
}

// Close stops the agent, its connections, and the embedded etcd.
func (a *Agent) Close() error {
	a.cancel()
	if a.tcp != nil {
		a.tcp.Close()
	}
	if a.sock != nil {
		a.sock.close()
	}
	a.wg.Wait()
	a.peers.close()
	a.unregister()
	a.closeUCX()
	if a.cacheStarted {
		a.owners.wait()
		a.cache.wait()
	}
	if a.kv != nil {
		a.kv.Close()
	}
	if a.etcd != nil {
		a.etcd.Close()
	}
	if a.root != nil {
		a.root.Close()
	}
	for _, l := range a.logs {
		l.Close()
	}
	return nil
}
