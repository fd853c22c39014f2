package dyad

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/dyad/ofd"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// Meta is the metadata of a produced file.
type Meta = wire.Meta

// Client produces and consumes files through the node agent.
type Client struct {
	cfg      Config
	stats    locStats
	log      *log.Logger
	progress Progress

	pending sync.WaitGroup
	mu      sync.Mutex
	asyncEr error
	// agents keeps the connection of the last staging for the next one.
	agents agentConns
}

// New returns a client for cfg. The DTL, when set, must be one this build provides;
// empty leaves the choice to the agent.
func New(cfg Config) (*Client, error) {
	if cfg.Namespace == "" {
		return nil, errors.New("dyad: a KVS namespace is required")
	}
	if cfg.DTL != "" {
		if _, err := ParseDTL(string(cfg.DTL)); err != nil {
			return nil, err
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.TransferTimeout <= 0 {
		cfg.TransferTimeout = 10 * time.Minute
	}
	if cfg.KeyBins <= 0 {
		cfg.KeyBins = 1024
	}
	c := &Client{cfg: cfg, log: log.New(os.Stderr, "dyad: ", log.Lmicroseconds)}
	return c, nil
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// socket returns the agent socket for an operation on the managed directory dir: the
// configured one, else the one SocketFor derives.
func (c *Client) socket(dir string) (string, error) {
	if c.cfg.AgentSocket != "" {
		return c.cfg.AgentSocket, nil
	}
	return SocketFor(dir)
}

// anySocket is the socket of operations that belong to no managed directory (listing,
// counters): the consumer's agent, else the producer's.
func (c *Client) anySocket() (string, error) {
	if c.cfg.ConsumerDir != "" {
		return c.socket(c.cfg.ConsumerDir)
	}
	return c.socket(c.cfg.ProducerDir)
}

// Key returns the metadata key of upath under the client's key shape.
func (c *Client) Key(upath string) string { return PathKey(upath, c.cfg.KeyDepth, c.cfg.KeyBins) }

func (c *Client) debugf(format string, args ...any) {
	if c.cfg.SyncDebug {
		c.log.Printf(format, args...)
	}
}

// resolve maps a user path to its path relative to dir (upath) and its absolute path.
// A path outside dir, or one climbing out of it with "..", is refused.
func (c *Client) resolve(dir, path, role string) (upath, abs string, err error) {
	if dir == "" {
		return "", "", fmt.Errorf("dyad: no %s managed directory configured (DYAD_PATH_%s)", role, strings.ToUpper(role))
	}
	dirAbs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	p := path
	if !filepath.IsAbs(p) {
		if c.cfg.PathRelative {
			p = filepath.Join(dirAbs, p)
		} else if p, err = filepath.Abs(p); err != nil {
			return "", "", err
		}
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(dirAbs, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		hint := ""
		if !filepath.IsAbs(path) && !c.cfg.PathRelative {
			hint = fmt.Sprintf(" (a relative path is taken from the working directory; with DYAD_PATH_RELATIVE=1 it is taken from the %s managed directory)", role)
		}
		return "", "", fmt.Errorf("dyad: %s is not under the %s managed directory %s%s", path, role, dirAbs, hint)
	}
	return filepath.ToSlash(rel), p, nil
}

// Produce publishes the file at path (under the producer managed directory): it fsyncs
// it if configured, computes its size and checksum, and has the agent publish the
// metadata with the next version. With AsyncPublish it returns at once (meta nil) and
// Close reports any failure.
func (c *Client) Produce(path string) (*Meta, error) {
	upath, abs, err := c.resolve(c.cfg.ProducerDir, path, "producer")
	if err != nil {
		return nil, err
	}
	if c.cfg.AsyncPublish {
		c.pending.Add(1)
		go func() {
			defer c.pending.Done()
			if _, err := c.publish(upath, abs); err != nil {
				c.mu.Lock()
				c.asyncEr = errors.Join(c.asyncEr, err)
				c.mu.Unlock()
			}
		}()
		return nil, nil
	}
	return c.publish(upath, abs)
}

func (c *Client) publish(upath, abs string) (m *Meta, err error) {
	// The step runs from the checksum's first byte to the agent's answer.
	var step Step
	if st, serr := os.Stat(abs); serr == nil {
		if step = c.beginStep("produce", upath, st.Size()); step != nil {
			defer func() { step.End(err) }()
		}
	}
	if c.cfg.FsyncWrite {
		f, err := os.Open(abs)
		if err != nil {
			return nil, fmt.Errorf("dyad: produce: %w", err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("dyad: produce: fsync %s: %w", abs, err)
		}
	}
	size, sum, err := checksumFile(abs, step)
	if err != nil {
		return nil, fmt.Errorf("dyad: produce: %w", err)
	}
	st, _ := os.Stat(abs)
	m = &Meta{Key: c.Key(upath), Path: upath, Size: size, Checksum: sum}
	if st != nil {
		m.MTimeNs = st.ModTime().UnixNano()
	}
	sock, err := c.socket(c.cfg.ProducerDir)
	if err != nil {
		return nil, err
	}
	r, err := call(context.Background(), sock,
		&wire.Msg{Op: wire.OpPublish, NS: c.cfg.Namespace, Key: m.Key, Path: abs, Meta: m,
			TimeoutMs: c.cfg.Timeout.Milliseconds()}, c.cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("dyad: produce %s: %w", upath, err)
	}
	c.debugf("produced %s key %s version %d size %d", upath, r.Meta.Key, r.Meta.Version, r.Meta.Size)
	return r.Meta, nil
}

// Consume makes the file at path (under the consumer managed directory) present and
// complete locally and returns its absolute path. It blocks until the file is produced,
// up to the configured timeout. A local copy is used while the agent has not seen a
// newer version; ConsumeVersion asks for a version explicitly.
func (c *Client) Consume(path string) (string, error) {
	return c.ConsumeVersion(context.Background(), path, 0)
}

// ConsumeVersion is Consume for a version >= minVersion.
func (c *Client) ConsumeVersion(ctx context.Context, path string, minVersion int64) (_ string, err error) {
	upath, abs, err := c.resolve(c.cfg.ConsumerDir, path, "consumer")
	if err != nil {
		return "", err
	}
	// One consumer per path on this node at a time: the others wait here, then find
	// the complete copy and skip the fetch. The holder may be staging the file, so a
	// waiter waits as long as that may take: its metadata wait and its transfer.
	lockPath := filepath.Join(c.cfg.ConsumerDir, stateDir, "locks", upath+".lock")
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		return "", fmt.Errorf("dyad: consume: %w", err)
	}
	lf, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Errorf("dyad: consume: %w", err)
	}
	defer lf.Close()
	wait := c.cfg.Timeout + c.cfg.TransferTimeout
	if c.cfg.Timeout <= 0 || c.cfg.TransferTimeout <= 0 {
		wait = 0 // one of them unbounded
	}
	if err := ofd.Lock(lf, true, wait); err != nil {
		return "", fmt.Errorf("dyad: consume %s: %w", upath, err)
	}
	defer ofd.Unlock(lf)

	// A complete local copy needs no agent.
	if m, ok, err := c.LookupLevel(ctx, LevelLocal, upath, minVersion); err != nil {
		return "", err
	} else if ok {
		c.debugf("located %s version %d at level %v", upath, m.Version, LevelLocal)
		return abs, nil
	}
	if c.cfg.SharedStorage || c.progress != nil {
		// Both need the record before anything moves: shared storage only compares
		// sizes, and a progress bar is told the size first.
		return c.consumeLocated(ctx, upath, abs, minVersion)
	}
	sock, err := c.socket(c.cfg.ConsumerDir)
	if err != nil {
		return "", err
	}
	// One request: the agent locates the record (its cache, else the KVS, where it waits
	// as the locator would) and stages the file, with no round trip in between.
	start := time.Now()
	r, err := c.agents.callStage(ctx, sock, &wire.Msg{Op: wire.OpStage, NS: c.cfg.Namespace, Key: c.Key(upath),
		Dest: abs, Path: sidecarPath(c.cfg.ConsumerDir, upath), MinVersion: minVersion, DTL: string(c.cfg.DTL),
		WaitMs: c.cfg.Timeout.Milliseconds(), TimeoutMs: c.cfg.TransferTimeout.Milliseconds()},
		c.cfg.Timeout+c.cfg.TransferTimeout+10*time.Second)
	if err != nil {
		return "", fmt.Errorf("dyad: consume %s: %w", upath, err)
	}
	if !r.Found {
		c.stats.record(LevelAgent, false, 0)
		c.stats.record(LevelKVS, false, time.Since(start))
		return "", fmt.Errorf("dyad: %s not produced within %v", upath, c.cfg.Timeout)
	}
	if r.Meta == nil {
		return "", fmt.Errorf("dyad: consume %s: the agent staged it but sent no metadata", upath)
	}
	level := Level(r.Level)
	if level == LevelKVS {
		c.stats.record(LevelAgent, false, 0)
	}
	if level == LevelAgent || level == LevelKVS {
		c.stats.record(level, true, time.Duration(r.LocateNs))
	}
	c.debugf("staged %s version %d (%d bytes), located at level %v (owner %s)", upath, r.Meta.Version, r.Meta.Size, level, r.Meta.Owner)
	return abs, nil
}

// consumeLocated is ConsumeVersion once the local copy is known to be missing or stale, in
// two requests: the locator's, then the staging of what it found.
func (c *Client) consumeLocated(ctx context.Context, upath, abs string, minVersion int64) (_ string, err error) {
	m, level, err := c.locateFrom(ctx, LevelAgent, upath, minVersion)
	if err != nil {
		return "", err
	}
	c.debugf("located %s version %d at level %v (owner %s)", upath, m.Version, level, m.Owner)
	if c.cfg.SharedStorage {
		// Shared storage: the producer's file is already here; synchronise only.
		st, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("dyad: consume %s (shared storage): published but not visible here: %w", upath, err)
		}
		if st.Size() != m.Size {
			return "", fmt.Errorf("dyad: consume %s (shared storage): size %d, published %d", upath, st.Size(), m.Size)
		}
		return abs, nil
	}
	sock, err := c.socket(c.cfg.ConsumerDir)
	if err != nil {
		return "", err
	}
	if step := c.beginStep("consume", upath, m.Size); step != nil {
		stop := watchStaging(step, abs)
		defer func() { stop(); step.End(err) }()
	}
	_, err = c.agents.callStage(ctx, sock, &wire.Msg{Op: wire.OpStage, NS: c.cfg.Namespace, Key: m.Key,
		Dest: abs, Path: sidecarPath(c.cfg.ConsumerDir, upath), Meta: m, DTL: string(c.cfg.DTL),
		TimeoutMs: c.cfg.TransferTimeout.Milliseconds()}, c.cfg.TransferTimeout)
	if err != nil {
		return "", fmt.Errorf("dyad: consume %s: %w", upath, err)
	}
	c.debugf("staged %s version %d (%d bytes)", upath, m.Version, m.Size)
	return abs, nil
}

// Open consumes path and opens the local copy for reading.
func (c *Client) Open(path string) (*os.File, error) {
	p, err := c.Consume(path)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// File is a file being produced: Close closes it and then produces it.
type File struct {
	*os.File
	c    *Client
	path string
}

// Create creates path under the producer managed directory (creating parent
// directories) and returns a file whose Close publishes it.
func (c *Client) Create(path string) (*File, error) {
	_, abs, err := c.resolve(c.cfg.ProducerDir, path, "producer")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("dyad: create: %w", err)
	}
	f, err := os.Create(abs)
	if err != nil {
		return nil, fmt.Errorf("dyad: create: %w", err)
	}
	return &File{File: f, c: c, path: abs}, nil
}

// Close closes the file and produces it.
func (f *File) Close() error {
	if err := f.File.Close(); err != nil {
		return err
	}
	_, err := f.c.Produce(f.path)
	return err
}

// Stat returns the metadata of path as the locator finds it, without waiting.
func (c *Client) Stat(ctx context.Context, path string) (*Meta, Level, error) {
	upath, _, err := c.resolve(c.cfg.ConsumerDir, path, "consumer")
	if err != nil {
		if upath, _, err = c.resolve(c.cfg.ProducerDir, path, "producer"); err != nil {
			return nil, 0, err
		}
	}
	for l := LevelLocal; l < numLevels; l++ {
		m, ok, err := c.LookupLevel(ctx, l, upath, 0)
		if err != nil {
			return nil, l, err
		}
		if ok {
			return m, l, nil
		}
	}
	return nil, LevelKVS, fmt.Errorf("dyad: %s: %w", upath, os.ErrNotExist)
}

// List returns the metadata published in the namespace whose key starts with prefix.
func (c *Client) List(ctx context.Context, prefix string) ([]*Meta, error) {
	var out []*Meta
	sock, err := c.anySocket()
	if err != nil {
		return nil, err
	}
	err = stream(ctx, sock, &wire.Msg{Op: wire.OpList, NS: c.cfg.Namespace, Key: prefix, TimeoutMs: c.cfg.Timeout.Milliseconds()},
		c.cfg.Timeout, func(m *wire.Msg) bool {
			if m.Meta != nil {
				out = append(out, m.Meta)
			}
			return true
		})
	return out, err
}

// Counters returns the local agent's counters.
func (c *Client) Counters(ctx context.Context) (map[string]int64, error) {
	sock, err := c.anySocket()
	if err != nil {
		return nil, err
	}
	r, err := call(ctx, sock, &wire.Msg{Op: wire.OpStats}, c.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	return r.Counters, nil
}

// Close waits for asynchronous publications and returns their errors.
func (c *Client) Close() error {
	c.pending.Wait()
	c.agents.close()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asyncEr
}
