package dyad

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// Level is a level of the file locator, fastest first.
type Level int

// The locator levels.
const (
	// LevelLocal is a complete copy in the local managed directory.
	LevelLocal Level = iota
	// LevelAgent is the node agent's metadata cache.
	LevelAgent
	// LevelKVS is the global key-value store (the only level that waits).
	LevelKVS
	numLevels
)

func (l Level) String() string {
	switch l {
	case LevelLocal:
		return "local"
	case LevelAgent:
		return "agent"
	case LevelKVS:
		return "kvs"
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// LevelStats reports how one locator level fared.
type LevelStats struct {
	Level  Level
	Hits   int64
	Misses int64
	// Median and Total are over every lookup at this level, hit or miss.
	Median, Total time.Duration
}

type locStats struct {
	mu      sync.Mutex
	hits    [numLevels]int64
	misses  [numLevels]int64
	samples [numLevels][]time.Duration
}

const maxSamples = 4096

func (s *locStats) record(l Level, hit bool, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hit {
		s.hits[l]++
	} else {
		s.misses[l]++
	}
	if len(s.samples[l]) < maxSamples {
		s.samples[l] = append(s.samples[l], d)
	} else {
		s.samples[l][(s.hits[l]+s.misses[l])%maxSamples] = d
	}
}

func (s *locStats) snapshot() []LevelStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]LevelStats, numLevels)
	for l := range numLevels {
		ls := LevelStats{Level: l, Hits: s.hits[l], Misses: s.misses[l]}
		xs := append([]time.Duration(nil), s.samples[l]...)
		sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
		for _, x := range xs {
			ls.Total += x
		}
		if len(xs) > 0 {
			ls.Median = xs[len(xs)/2]
		}
		out[l] = ls
	}
	return out
}

// LocatorStats returns per-level hit counts and latencies of this client's lookups.
func (c *Client) LocatorStats() []LevelStats { return c.stats.snapshot() }

// LookupLevel asks one locator level for the metadata of upath, without waiting.
// It reports found = false when that level does not know a version >= minVersion.
func (c *Client) LookupLevel(ctx context.Context, l Level, upath string, minVersion int64) (*wire.Meta, bool, error) {
	start := time.Now()
	m, ok, err := c.lookupLevel(ctx, l, upath, minVersion, 0)
	c.stats.record(l, ok, time.Since(start))
	return m, ok, err
}

func (c *Client) lookupLevel(ctx context.Context, l Level, upath string, minVersion int64, wait time.Duration) (*wire.Meta, bool, error) {
	key := c.Key(upath)
	switch l {
	case LevelLocal:
		m, err := ReadStaged(joinManaged(c.cfg.ConsumerDir, upath), sidecarPath(c.cfg.ConsumerDir, upath))
		if err != nil || m.Key != key || m.Version < minVersion {
			return nil, false, nil
		}
		// A copy counts only if it is complete: its record (StagedAttr) is set before the
		// rename, or its sidecar written after it, and the size must still match.
		st, err := os.Stat(joinManaged(c.cfg.ConsumerDir, upath))
		if err != nil || !st.Mode().IsRegular() || st.Size() != m.Size {
			return nil, false, nil
		}
		if c.cfg.SyncCheck {
			_, sum, err := checksumFile(joinManaged(c.cfg.ConsumerDir, upath), nil)
			if err != nil || sum != m.Checksum {
				return nil, false, nil
			}
		}
		return m, true, nil
	case LevelAgent, LevelKVS:
		// Path only names the file in the agent's errors and logs; the key finds it.
		req := &wire.Msg{Op: wire.OpLookup, NS: c.cfg.Namespace, Key: key, Path: upath, MinVersion: minVersion}
		timeout := c.cfg.Timeout
		if l == LevelKVS {
			req.Op = wire.OpWait
			req.TimeoutMs = wait.Milliseconds()
			timeout = wait + 10*time.Second
		}
		sock, err := c.socket(c.cfg.ConsumerDir)
		if err != nil {
			return nil, false, err
		}
		r, err := call(ctx, sock, req, timeout)
		if err != nil {
			return nil, false, err
		}
		if !r.Found || r.Meta == nil {
			return nil, false, nil
		}
		return r.Meta, true, nil
	}
	return nil, false, fmt.Errorf("dyad: no locator level %v", l)
}

// Locate finds the metadata of upath at version >= minVersion, asking the local managed
// directory, then the agent's cache, then the global KVS, where it waits up to the
// configured timeout for the file to be produced.
func (c *Client) Locate(ctx context.Context, upath string, minVersion int64) (*wire.Meta, Level, error) {
	return c.locateFrom(ctx, LevelLocal, upath, minVersion)
}

// locateFrom is Locate starting at level from.
func (c *Client) locateFrom(ctx context.Context, from Level, upath string, minVersion int64) (*wire.Meta, Level, error) {
	for l := from; l < LevelKVS; l++ {
		m, ok, err := c.LookupLevel(ctx, l, upath, minVersion)
		if err != nil {
			return nil, l, err
		}
		if ok {
			return m, l, nil
		}
	}
	start := time.Now()
	m, ok, err := c.lookupLevel(ctx, LevelKVS, upath, minVersion, c.cfg.Timeout)
	c.stats.record(LevelKVS, ok, time.Since(start))
	if err != nil {
		return nil, LevelKVS, err
	}
	if !ok {
		return nil, LevelKVS, fmt.Errorf("dyad: %s not produced within %v", upath, c.cfg.Timeout)
	}
	return m, LevelKVS, nil
}
