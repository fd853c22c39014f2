package protocol

import (
	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/replay"
)

// Piece is one request of a rank in an epoch or round, as the roles see it:
// a box of a variable (of element type Type, for the replay signature) with
// the write Seq or read ID that names it in schedules. Where its bytes live is
// the driver's business.
type Piece struct {
	Var  int
	Type int
	ID   int64
	Box  matcher.Box
}

// Session describes one session of a coupled file as both roles see it.
type Session struct {
	// Path and Session name the session; Section is its [FILE] section
	// and Slot the replay record slot of the session within it.
	Path             string
	Session, Section int
	Slot             int
	// FileID is the file slot of the data tags (writer side).
	FileID int
	// Rank and World are this rank's group rank and the world rank of
	// every rank of its group.
	Rank  int
	World []int
	// Peers are the writer group's world ranks; matchers are the first
	// Part.Matchers() of them.
	Peers []int
	// Part cuts each variable's index space among the matchers.
	Part *matcher.Partition
	// Replay is the section's replay_io.
	Replay bool
}

// key names this session's replay record of an epoch and round (-1: the
// writer's, or a reader's epoch end).
func (s *Session) key(epoch, round int) replay.Key {
	return replay.Key{Section: s.Section, Slot: s.Slot, Epoch: epoch, Round: round}
}

// matchers returns the world ranks of the session's matchers.
func (s *Session) matchers() []int { return s.Peers[:s.Part.Matchers()] }

// ranks is the group rank and size that requests carry.
func (s *Session) ranks() []int { return []int{s.Rank, len(s.World)} }

// Signature hashes the requests a rank makes in an epoch or round, with the
// ranks involved, so that any change of decomposition or variables shows.
func (s *Session) Signature(ps []Piece) uint64 {
	g := replay.NewSigner()
	g.Add(int64(s.Part.Matchers()))
	for _, w := range s.World {
		g.Add(int64(w))
	}
	for _, w := range s.Peers {
		g.Add(int64(w))
	}
	for _, p := range ps {
		g.Add(int64(p.Var), int64(p.Type), p.ID)
		g.AddInts(p.Box.Start)
		g.AddInts(p.Box.Count)
	}
	return g.Sum()
}

// Records are the replay records a process keeps for its writer and reader
// roles across sessions.
type Records struct {
	writers *replay.Store[writerRec]
	readers *replay.Store[readerRec]
	// ends holds, per reader epoch, one past its last recorded round: a
	// reader that ends an epoch earlier may have been pushed rounds to drain.
	ends *replay.Store[int]
}

// NewRecords returns empty replay records.
func NewRecords() *Records {
	return &Records{replay.NewStore[writerRec](), replay.NewStore[readerRec](), replay.NewStore[int]()}
}

// schedKey names what one matcher scheduled for one writer in one reader round.
type schedKey struct{ matcher, reader, round int }

// writerRec is a writer's replay record of an epoch: its sends, per round.
type writerRec map[schedKey][]Tagged

// readerRec is a reader's replay record of a round: each matcher's reply.
type readerRec map[int]*Envelope
