package protocol

import (
	"fmt"

	"github.com/couplet-hpc/couplet/internal/wire"
	"github.com/couplet-hpc/couplet/matcher"
)

//go:generate go tool msgp -io=false -tests=false
//msgp:tuple Envelope Tagged

// Kind names a control message. Data never travels in control messages: it
// moves as subarray-typed messages on data tags.
type Kind uint8

const (
	Header       Kind = iota + 1 // writer root -> peer component: the header at each enddef, Round its version
	WriteReqs                    // writer -> matcher: its writes in the matcher's region, at epoch end
	ReadReqs                     // reader -> matcher: a round of reads (Final/Closing flags)
	Schedule                     // matcher -> writer: boxes to send
	Expect                       // matcher -> reader: boxes that will arrive, and what nobody wrote
	EpochDone                    // matcher -> writer: every reader finished the epoch
	Closed                       // file mode: writer root -> reader root: the file is closed on disk
	RecsQuery                    // reader -> matcher 0: the record count once the writers' epoch is complete
	Recs                         // matcher 0 -> reader: the record count
	Forget                       // writer root -> peer component: the session ended, drop its header if never taken
	Verdict                      // replaying writer -> readers of its record: it matched its record and sent by it
	DoneMultiple                 // reader -> matcher: done with the writer's multiple epoch (dtf_complete_multiple)
	kindEnd                      // one past the last kind
)

var kindNames = [...]string{Header: "HEADER", WriteReqs: "WRITE_REQS", ReadReqs: "READ_REQS", Schedule: "SCHEDULE",
	Expect: "EXPECT", EpochDone: "EPOCH_DONE", Closed: "FILE_CLOSED",
	RecsQuery: "RECS_QUERY", Recs: "RECS", Forget: "FORGET", Verdict: "VERDICT", DoneMultiple: "DONE_MULTIPLE"}

// String is the kind's name as the table in the package doc gives it.
func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Envelope is every control message. Fields a kind does not use stay empty.
type Envelope struct {
	_msgpack struct{} `msgpack:",as_array"`
	Kind     Kind
	Path     string
	Session  int
	Epoch    int
	Round    int
	From     int // sender's world rank, filled in on receipt
	FileID   int
	NumRecs  int64
	Header   []byte
	Ranks    []int // Header: the writer group's world ranks
	Writes   []matcher.Write
	Reads    []matcher.Read
	Final    bool // reader: no more reads in this epoch
	Closing  bool // reader: the file is closed, no more reads at all
	Sched    []Tagged
	Missing  []matcher.Uncovered
	Err      string   // matcher-side failure reported to the peer
	Section  int      // [FILE] section index, for replay records
	Replay   bool     // requests: the sender matches its replay record (and omits its requests); replies: serve by the record
	Record   bool     // replay is on for this section and round: record the outcome
	Peer     int      // replay schedule: the reader's world rank
	Sent     int64    // requests, Verdict: wall clock (Unix ns) when the sender reached its epoch end or read round
	Writers  int64    // Expect: wall clock (Unix ns) when the latest writer reached its epoch end
	Settle   bool     // a reader's last round: it recorded later rounds, so it waits for drains
	Drain    []Tagged // Expect: recorded transfers pushed to a reader that did not replay them
	Pushers  []int    // Expect of a fresh match: world ranks of the writers that pushed their records
	Closed   []int    // EpochDone: world ranks of the readers that closed the session; WriteReqs of a replaying writer: those it pushed nothing to
	Multiple bool     // WriteReqs: the writer's epoch serves several reader transfers (dtf_transfer_multiple); Expect: the reader's epoch is such an epoch
}

// Tagged is a scheduled transfer with the data tag both sides use for it.
type Tagged struct {
	_msgpack struct{} `msgpack:",as_array"`
	T        matcher.Transfer
	ID       int64 // transfer id: the data tag is tags.data(fileID, ID)
	Peer     int   // world rank of the other side: the reader in a schedule, the writer in an expect
}

// Encode serialises a control message.
func (m *Envelope) Encode() ([]byte, error) { return wire.Encode(nil, m) }

// AppendTo appends m's encoding to frame. A frame is what one transport
// message carries: one or more envelopes back to back, so that a driver
// sends a peer everything one step of its roles has for it at once.
func (m *Envelope) AppendTo(frame []byte) ([]byte, error) { return wire.Encode(frame, m) }

// Decode parses a control message, rejecting malformed input: unknown kinds,
// negative counters and invalid boxes.
func Decode(b []byte) (*Envelope, error) {
	var m Envelope
	if err := wire.Decode(b, &m); err != nil {
		return nil, fmt.Errorf("dtf: bad control message: %w", err)
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// DecodeFrame parses a frame of one or more envelopes (AppendTo), each
// checked as Decode checks one.
func DecodeFrame(b []byte) ([]*Envelope, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("dtf: bad control message: empty")
	}
	var out []*Envelope
	for len(b) > 0 {
		m := &Envelope{}
		var err error
		if b, err = wire.DecodeNext(b, m); err != nil {
			return nil, fmt.Errorf("dtf: bad control message %d of its frame: %w", len(out)+1, err)
		}
		if err := m.validate(); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// validate rejects what decodes but cannot be a message: unknown kinds,
// negative counters and invalid boxes.
func (m *Envelope) validate() error {
	if m.Kind == 0 || m.Kind >= kindEnd {
		return fmt.Errorf("dtf: bad control message: unknown Kind %d", m.Kind)
	}
	if m.Session < 0 || m.Epoch < 0 || m.Round < 0 {
		return fmt.Errorf("dtf: bad control message: negative session/epoch/round")
	}
	for _, w := range m.Writes {
		if err := w.Box.Validate(); err != nil {
			return fmt.Errorf("dtf: bad control message: write box: %w", err)
		}
	}
	for _, r := range m.Reads {
		if err := r.Box.Validate(); err != nil {
			return fmt.Errorf("dtf: bad control message: read box: %w", err)
		}
	}
	for _, t := range m.Sched {
		if err := t.T.Box.Validate(); err != nil {
			return fmt.Errorf("dtf: bad control message: scheduled box: %w", err)
		}
	}
	return nil
}
