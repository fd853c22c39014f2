package dtf

import (
	"github.com/couplet-hpc/couplet/dtf/protocol"
	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/replay"
)

// stores are the replay records a process keeps for its roles.
type stores struct{ recs *protocol.Records }

func newStores() stores { return stores{protocol.NewRecords()} }

// protoSession describes this session to the protocol's roles.
func (f *File) protoSession() protocol.Session {
	return protocol.Session{Path: f.path, Session: f.session, Section: f.fc.Index, Slot: f.session % max(1, f.fc.NumSessions),
		FileID: f.fileID, Rank: f.me, World: f.world, Peers: f.peers, Part: f.part, Replay: f.fc.ReplayIO}
}

// slotOf maps a session to its record slot for a section named in a message.
func (e *engine) slotOf(section, session int) int {
	if section < 0 || section >= len(e.cfg.Files) {
		return session
	}
	return session % max(1, e.cfg.Files[section].NumSessions)
}

// outcomeOf converts a replay outcome for the statistics.
func outcomeOf(o replay.Outcome) stats.Outcome { return stats.Outcome(o.String()) }
