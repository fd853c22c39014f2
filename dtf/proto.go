package dtf

import (
	"fmt"

	"github.com/couplet-hpc/couplet/internal/wire"
	"github.com/couplet-hpc/couplet/matcher"
)

// kind names a control message. Data never travels in control messages: it
// moves as subarray-typed messages on data tags.
type kind uint8

const (
	kHeader    kind = iota + 1 // writer root -> reader root: the header at enddef
	kWriteReqs                 // writer -> matcher: its writes in the matcher's region, at epoch end
	kReadReqs                  // reader -> matcher: a round of reads (Final/Closing flags)
	kSchedule                  // matcher -> writer: boxes to send
	kExpect                    // matcher -> reader: boxes that will arrive, and what nobody wrote
	kEpochDone                 // matcher -> writer: every reader finished the epoch
	kClosed                    // file mode: writer root -> reader root: the file is closed on disk
	kRecsQuery                 // reader -> matcher 0: the record count once the writers' epoch is complete
	kRecs                      // matcher 0 -> reader: the record count
	kForget                    // writer root -> peer component: the session ended, drop its header if never taken
	kVerdict                   // replaying writer -> readers of its record: it matched its record and sent by it
	kindEnd
)

var kindNames = [...]string{kHeader: "HEADER", kWriteReqs: "WRITE_REQS", kReadReqs: "READ_REQS", kSchedule: "SCHEDULE",
	kExpect: "EXPECT", kEpochDone: "EPOCH_DONE", kClosed: "FILE_CLOSED",
	kRecsQuery: "RECS_QUERY", kRecs: "RECS", kForget: "FORGET", kVerdict: "VERDICT"}

func (k kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// sessKey names one open/close session of a coupled file.
type sessKey struct {
	Path    string
	Session int
}

// envelope is every control message. Fields unused by a kind stay empty.
type envelope struct {
	_msgpack struct{} `msgpack:",as_array"`
	Kind     kind
	Path     string
	Session  int
	Epoch    int
	Round    int
	From     int // sender's world rank, filled in on receipt
	FileID   int
	NumRecs  int64
	Header   []byte
	Ranks    []int // kHeader: the writer group's world ranks
	Writes   []matcher.Write
	Reads    []matcher.Read
	Final    bool // reader: no more reads in this epoch
	Closing  bool // reader: the file is closed, no more reads at all
	Sched    []tagged
	Missing  []matcher.Uncovered
	Err      string   // matcher-side failure reported to the peer
	Section  int      // [FILE] section index, for replay records
	Replay   bool     // requests: the sender matches its replay record (and omits its requests); replies: serve by the record
	Record   bool     // replay is on for this section and round: record the outcome
	Peer     int      // replay schedule: the reader's world rank
	Sent     int64    // requests, kVerdict: wall clock (Unix ns) when the sender reached its epoch end or read round
	Writers  int64    // kExpect: wall clock (Unix ns) when the latest writer reached its epoch end
	Settle   bool     // a reader's last round: it recorded later rounds, so it waits for drains
	Drain    []tagged // kExpect: recorded transfers pushed to a reader that did not replay them
	Pushers  []int    // kExpect of a fresh match: world ranks of the writers that pushed their records
	Closed   []int    // kEpochDone: world ranks of the readers that closed the session
}

// tagged is a scheduled transfer with the data tag both sides use for it.
type tagged struct {
	_msgpack struct{} `msgpack:",as_array"`
	T        matcher.Transfer
	ID       int64 // transfer id: the data tag is tags.data(fileID, ID)
	Peer     int   // world rank of the other side: the reader in a schedule, the writer in an expect
}

func (m *envelope) key() sessKey { return sessKey{m.Path, m.Session} }

// encode serialises a control message.
func (m *envelope) encode() ([]byte, error) { return wire.Marshal(m) }

// decodeEnvelope parses a control message, rejecting malformed input.
func decodeEnvelope(b []byte) (*envelope, error) {
	var m envelope
	if err := wire.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("dtf: bad control message: %w", err)
	}
	if m.Kind == 0 || m.Kind >= kindEnd {
		return nil, fmt.Errorf("dtf: bad control message: unknown kind %d", m.Kind)
	}
	if m.Session < 0 || m.Epoch < 0 || m.Round < 0 {
		return nil, fmt.Errorf("dtf: bad control message: negative session/epoch/round")
	}
	for _, w := range m.Writes {
		if err := w.Box.Validate(); err != nil {
			return nil, fmt.Errorf("dtf: bad control message: write box: %w", err)
		}
	}
	for _, r := range m.Reads {
		if err := r.Box.Validate(); err != nil {
			return nil, fmt.Errorf("dtf: bad control message: read box: %w", err)
		}
	}
	for _, t := range m.Sched {
		if err := t.T.Box.Validate(); err != nil {
			return nil, fmt.Errorf("dtf: bad control message: scheduled box: %w", err)
		}
	}
	return &m, nil
}
