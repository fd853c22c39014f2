package dtf

import "github.com/couplet-hpc/couplet/dtf/protocol"

// The control messages live in dtf/protocol; these short names keep the engine readable.
type (
	kind     = protocol.Kind
	envelope = protocol.Envelope
	tagged   = protocol.Tagged
)

// Message kinds (see the table in dtf/protocol's package doc).
const (
	kHeader    = protocol.Header
	kWriteReqs = protocol.WriteReqs
	kReadReqs  = protocol.ReadReqs
	kSchedule  = protocol.Schedule
	kExpect    = protocol.Expect
	kEpochDone = protocol.EpochDone
	kClosed    = protocol.Closed
	kRecsQuery = protocol.RecsQuery
	kRecs      = protocol.Recs
	kForget    = protocol.Forget
	kVerdict   = protocol.Verdict
	kDoneMulti = protocol.DoneMultiple
)

// sessKey names one open/close session of a coupled file.
type sessKey struct {
	Path    string
	Session int
}

// keyOf names the session a control message is about.
func keyOf(m *envelope) sessKey { return sessKey{m.Path, m.Session} }
