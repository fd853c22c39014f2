package dtf

import (
	"github.com/couplet-hpc/couplet/dtf/protocol"
	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/replay"
)

// readerRec is a reader's replay record of a round: each matcher's reply.
type readerRec map[int]*envelope

// stores are the replay records a process keeps for its roles.
type stores struct {
	recs  *protocol.Records
	rrecs *replay.Store[readerRec]
	// ends holds, per reader epoch, one past its last recorded round: a
	// reader that ends an epoch earlier may have pushed rounds to drain.
	ends *replay.Store[int]
}

func newStores() stores {
	return stores{protocol.NewRecords(), replay.NewStore[readerRec](), replay.NewStore[int]()}
}

// protoSession describes this session to the protocol's roles.
func (f *File) protoSession() protocol.Session {
	return protocol.Session{Path: f.path, Session: f.session, Section: f.fc.Index, Slot: f.session % max(1, f.fc.NumSessions),
		FileID: f.fileID, Rank: f.me, World: f.world, Peers: f.peers, Part: f.part, Replay: f.fc.ReplayIO}
}

// replayKey names this file's record for an epoch and round (-1: the writer's).
func (f *File) replayKey(round int) replay.Key {
	return replay.Key{Section: f.fc.Index, Slot: f.session % max(1, f.fc.NumSessions), Epoch: f.epoch, Round: round}
}

// slotOf maps a session to its record slot for a section named in a message.
func (e *engine) slotOf(section, session int) int {
	if section < 0 || section >= len(e.cfg.Files) {
		return session
	}
	return session % max(1, e.cfg.Files[section].NumSessions)
}

// signature hashes the requests this rank makes in an epoch or round, with
// the ranks involved, so any change of decomposition or variables shows.
func (f *File) signature(ps []*piece) uint64 {
	s := replay.NewSigner()
	s.Add(int64(f.part.Matchers()))
	for _, w := range f.world {
		s.Add(int64(w))
	}
	for _, w := range f.peers {
		s.Add(int64(w))
	}
	for _, p := range ps {
		s.Add(int64(p.varid), int64(f.hdr.Vars[p.varid].Type), p.id)
		s.AddInts(p.box.Start)
		s.AddInts(p.box.Count)
	}
	return s.Sum()
}

// outcomeOf converts a replay outcome for the statistics.
func outcomeOf(o replay.Outcome) stats.Outcome { return stats.Outcome(o.String()) }
