package dtf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"
)

// ReplayOutcome says how replay went in one epoch on one rank.
type ReplayOutcome string

// Replay outcomes.
const (
	ReplayOff  ReplayOutcome = "off"  // replay_io is 0, or this epoch has no record yet
	ReplayHit  ReplayOutcome = "hit"  // signatures matched: matching was skipped
	ReplayMiss ReplayOutcome = "miss" // signatures differed: full matching, re-recorded
)

// EpochStats is the statistics record of one rank for one transfer epoch of one file.
// Records are written as JSON lines (see StatsWriter); durations are integer
// nanoseconds.
type EpochStats struct {
	File     string `json:"file"`    // file path as opened
	Section  int    `json:"section"` // index of the [FILE] section (FileConfig.Index)
	Session  int    `json:"session"` // open/close session of the file, from 0
	Epoch    int    `json:"epoch"`   // epoch within the session, from 0
	Role     string `json:"role"`    // "writer" or "reader" (a matcher rank is a writer)
	Rank     int    `json:"rank"`    // rank within its component
	Comp     string `json:"comp"`    // component name
	Bytes    int64  `json:"bytes"`   // array data this rank sent (writer) or received (reader)
	Requests int64  `json:"requests"`

	MatchTime    time.Duration `json:"match_ns"`             // time spent matching (matchers) or waiting for schedules (readers)
	WaitTime     time.Duration `json:"wait_ns"`              // part of match_ns spent waiting for the writers to reach the epoch end
	TransferTime time.Duration `json:"transfer_ns"`          // writers: the epoch end; readers: posting receives and waiting for the data
	UserIOTime   time.Duration `json:"user_io_ns,omitempty"` // time between dtf_time_start and dtf_time_end
	MsgsSent     int64         `json:"msgs_sent"`            // messages this rank sent, control and data
	MsgsRecv     int64         `json:"msgs_recv"`            // messages this rank received
	Replay       ReplayOutcome `json:"replay"`               // replay outcome
	Pushed       int           `json:"pushed,omitempty"`     // reader: rounds taken as every writer pushed them by its record, without the matchers
	Drained      int           `json:"drained,omitempty"`    // reader: pushed transfers it received only to discard
	Start        time.Time     `json:"start"`                // epoch start on this rank
	End          time.Time     `json:"end"`                  // epoch end on this rank
	Error        string        `json:"error,omitempty"`      // the epoch's error, if it failed
}

// StatsWriter appends EpochStats records as JSON lines. It is safe for concurrent
// use, and each record goes out in a single Write call, so many ranks may append to one
// file opened with O_APPEND. A nil *StatsWriter discards records (statistics off).
type StatsWriter struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer // nil unless the writer owns a file
}

// NewStatsWriter returns a StatsWriter appending to w.
func NewStatsWriter(w io.Writer) *StatsWriter { return &StatsWriter{w: w} }

// OpenStatsWriter opens (creating if needed) path for appending. An empty path means
// statistics are off: it returns a nil writer and no error.
func OpenStatsWriter(path string) (*StatsWriter, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dtf stats: %w", err)
	}
	return &StatsWriter{w: f, c: f}, nil
}

// Write appends one record.
func (s *StatsWriter) Write(rec EpochStats) error {
	if s == nil {
		return nil
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("dtf stats: %w", err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(line); err != nil {
		return fmt.Errorf("dtf stats: %w", err)
	}
	return nil
}

// Close closes the file opened by OpenStatsWriter; it does not close a writer given to
// NewStatsWriter.
func (s *StatsWriter) Close() error {
	if s == nil || s.c == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Close()
}

// ReadStats reads JSON-lines records. Blank lines are skipped; unknown fields are
// ignored so newer files stay readable. A malformed line is an error naming its line.
func ReadStats(r io.Reader) ([]EpochStats, error) {
	var recs []EpochStats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec EpochStats
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("stats line %d: %w", n, err)
		}
		switch rec.Replay {
		case "", ReplayOff, ReplayHit, ReplayMiss:
		default:
			return nil, fmt.Errorf("stats line %d: bad replay value %q", n, rec.Replay)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return recs, nil
}

// EpochSummary aggregates the records of all ranks for one file and epoch.
type EpochSummary struct {
	File                  string
	Section, Session      int
	Epoch                 int
	Writers, Readers      int           // records per role
	Bytes                 int64         // bytes moved: the readers' total, or the writers' if no reader reported
	Requests              int64         // requests of all ranks
	Msgs                  int64         // messages sent by all ranks
	MaxMatch, MaxTransfer time.Duration // slowest rank
	MaxWait               time.Duration // longest WaitTime of a rank: a reader's wait for the writers, within its match time
	ReplayHits            int           // records with replay hit
	ReplayMisses          int           // records with replay miss
	Errors                int           // records carrying an error
	Start, End            time.Time     // earliest start, latest end
}

// Throughput is Bytes per second of MaxTransfer, or 0 without a transfer time.
func (s EpochSummary) Throughput() float64 {
	if s.MaxTransfer <= 0 {
		return 0
	}
	return float64(s.Bytes) / s.MaxTransfer.Seconds()
}

// Replay sums up the replay outcome: "hit" if every record hit, "miss" if any missed,
// "off" if none replayed, else "partial".
func (s EpochSummary) Replay() string {
	n := s.Writers + s.Readers
	switch {
	case s.ReplayMisses > 0:
		return string(ReplayMiss)
	case s.ReplayHits == 0:
		return string(ReplayOff)
	case s.ReplayHits == n:
		return string(ReplayHit)
	}
	return "partial"
}

// SummarizeStats groups records by file, section, session and epoch, ordered by the
// earliest start time (then file, session, epoch).
func SummarizeStats(recs []EpochStats) []EpochSummary {
	type key struct {
		file                    string
		section, session, epoch int
	}
	idx := map[key]int{}
	var out []EpochSummary
	var writerBytes []int64
	for _, r := range recs {
		k := key{r.File, r.Section, r.Session, r.Epoch}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, EpochSummary{File: r.File, Section: r.Section, Session: r.Session, Epoch: r.Epoch, Start: r.Start, End: r.End})
			writerBytes = append(writerBytes, 0)
		}
		s := &out[i]
		if r.Role == "reader" {
			s.Readers++
			s.Bytes += r.Bytes
		} else {
			s.Writers++
			writerBytes[i] += r.Bytes
		}
		s.Requests += r.Requests
		s.Msgs += r.MsgsSent
		s.MaxMatch = max(s.MaxMatch, r.MatchTime)
		s.MaxWait = max(s.MaxWait, r.WaitTime)
		s.MaxTransfer = max(s.MaxTransfer, r.TransferTime)
		switch r.Replay {
		case ReplayHit:
			s.ReplayHits++
		case ReplayMiss:
			s.ReplayMisses++
		}
		if r.Error != "" {
			s.Errors++
		}
		if !r.Start.IsZero() && (s.Start.IsZero() || r.Start.Before(s.Start)) {
			s.Start = r.Start
		}
		if r.End.After(s.End) {
			s.End = r.End
		}
	}
	for i := range out {
		if out[i].Readers == 0 {
			out[i].Bytes = writerBytes[i]
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		return a.Epoch < b.Epoch
	})
	return out
}
