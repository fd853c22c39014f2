package stats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Writer appends Records as JSON lines. It is safe for concurrent use, and
// each record goes out in a single Write call, so many ranks may append to one
// file opened with O_APPEND. A nil *Writer discards records (statistics off).
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer // nil unless the writer owns a file
}

// NewWriter returns a Writer appending to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Open opens (creating if needed) path for appending. An empty path means
// statistics are off: it returns a nil writer and no error.
func Open(path string) (*Writer, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dtf stats: %w", err)
	}
	return &Writer{w: f, c: f}, nil
}

// Write appends one record.
func (s *Writer) Write(rec Record) error {
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

// Close closes the file opened by Open; it does not close a writer given to
// NewWriter.
func (s *Writer) Close() error {
	if s == nil || s.c == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Close()
}

// Read reads JSON-lines records. Blank lines are skipped; unknown fields are
// ignored so newer files stay readable. A malformed line is an error naming
// its line.
func Read(r io.Reader) ([]Record, error) {
	var recs []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("stats line %d: %w", n, err)
		}
		switch rec.Replay {
		case "", Off, Hit, Miss:
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

// ReadFile reads the records of the file at path.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dtf stats: %w", err)
	}
	defer f.Close()
	recs, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}
