package dtf

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/replay"
)

// mfile is a matcher's state for one session of one file. It is built from
// messages alone, because readers' requests may arrive before this rank has
// itself created the file.
type mfile struct {
	key      sessKey
	fileID   int
	nWriters int
	writers  []int // world rank of each writer group rank, learnt from their requests
	nReaders int
	closed   map[int]bool // reader group ranks that closed the file
	gone     []int        // and their world ranks
	epochs   map[int]*mepoch
	nextID   int64
}

// mepoch is one transfer epoch at a matcher.
type mepoch struct {
	fromWriters int
	writes      []matcher.Write
	numRecs     int64
	closing     bool
	queued      []*envelope // read rounds and record queries waiting for the writers' epoch to end
	writersAt   int64       // the latest writer's epoch end (Sent, wall clock)
	final       map[int]bool
	matchTime   time.Duration

	// A multiple epoch (dtf_transfer_multiple) serves every round of the
	// readers until each reader rank is done with it (completed) or closed.
	multiple  bool
	completed map[int]bool

	// Replay: the writer group ranks that match their records (and sent no
	// writes), whether they all do (wReplay, known once every writer is
	// in), whether to record, under which key, and the record being built.
	replayed []int
	unpushed map[int][]int // replaying writer group rank -> world ranks of readers it pushed nothing to
	wReplay  bool
	record   bool
	key      replay.Key
	rec      *matchRec

	// served are the rounds answered in this epoch. old is the record the
	// replaying writers sent by, and taken its rounds whose pushed transfers
	// a reader took or was told to drain.
	served map[roundKey]bool
	old    *matchRec
	taken  map[roundKey]bool

	// ids are the transfer ids of this matcher in use in the epoch: the
	// record's and those handed out, so wrapped ids never repeat in it.
	ids map[int64]bool
}

// matchRec is a matcher's replay record of an epoch: the writes, and each
// reader round's reads and outcome, so either side may omit unchanged requests.
type matchRec struct {
	writes []matcher.Write
	rounds map[roundKey]*roundRec
}

type roundKey struct{ reader, round int }

// roundRec is one matched reader round: its reads, the largest transfer id
// used, and the reader's schedule, so the matcher knows what replaying
// writers push.
type roundRec struct {
	reads []matcher.Read
	maxID int64
	sched []tagged
}

// recordedWrites returns the writes of the given writer group ranks from a
// record, in recorded order.
func recordedWrites(ws []matcher.Write, ranks []int) []matcher.Write {
	var out []matcher.Write
	for _, w := range ws {
		if slices.Contains(ranks, w.Rank) {
			out = append(out, w)
		}
	}
	return out
}

func (mf *mfile) epoch(n int) *mepoch {
	ep := mf.epochs[n]
	if ep == nil {
		ep = &mepoch{final: map[int]bool{}, completed: map[int]bool{}, served: map[roundKey]bool{}, taken: map[roundKey]bool{}}
		mf.epochs[n] = ep
	}
	return ep
}

// onMatcherMsg handles writers' and readers' requests at a matcher.
func (e *engine) onMatcherMsg(m *envelope) error {
	mf := e.match[keyOf(m)]
	if mf == nil {
		mf = &mfile{key: keyOf(m), epochs: map[int]*mepoch{}, closed: map[int]bool{}}
		e.match[keyOf(m)] = mf
	}
	if len(m.Ranks) != 2 || m.Ranks[0] < 0 || m.Ranks[0] >= m.Ranks[1] {
		return fmt.Errorf("dtf: %s from world rank %d lacks a valid group rank/size", m.Kind, m.From)
	}
	rank, size := m.Ranks[0], m.Ranks[1]
	ep := mf.epoch(m.Epoch)
	switch m.Kind {
	case kWriteReqs:
		if mf.writers == nil {
			mf.nWriters, mf.writers, mf.fileID = size, make([]int, size), m.FileID
		}
		mf.writers[rank] = m.From
		ep.fromWriters++
		ep.writes = append(ep.writes, m.Writes...)
		ep.numRecs = max(ep.numRecs, m.NumRecs)
		ep.writersAt = max(ep.writersAt, m.Sent)
		ep.closing = ep.closing || m.Final
		ep.multiple = ep.multiple || m.Multiple
		ep.record = m.Record
		if m.Replay {
			ep.replayed = append(ep.replayed, rank)
			if len(m.Closed) > 0 {
				if ep.unpushed == nil {
					ep.unpushed = map[int][]int{}
				}
				ep.unpushed[rank] = m.Closed
			}
		}
		ep.key = replay.Key{Section: m.Section, Slot: e.slotOf(m.Section, m.Session), Epoch: m.Epoch, Round: -1}
		if ep.fromWriters == mf.nWriters {
			if err := e.writesComplete(mf, ep); err != nil {
				return err
			}
		}
	case kDoneMulti:
		mf.nReaders = size
		ep.completed[rank] = true
	case kRecsQuery:
		if mf.writers != nil && ep.fromWriters == mf.nWriters {
			return e.serveRound(mf, ep, m)
		}
		ep.queued = append(ep.queued, m)
	case kReadReqs:
		mf.nReaders = size
		if m.Closing {
			if !mf.closed[rank] {
				mf.gone = append(mf.gone, m.From)
			}
			mf.closed[rank] = true
		}
		if m.Final || m.Closing {
			ep.final[rank] = true
		}
		if len(m.Reads) > 0 || m.Replay || !m.Closing || m.Settle {
			if ep.fromWriters == mf.nWriters && mf.writers != nil {
				if err := e.serveRound(mf, ep, m); err != nil {
					return err
				}
			} else {
				ep.queued = append(ep.queued, m)
			}
		}
	}
	return e.finishEpochs(mf)
}

// writesComplete runs once every writer's requests for an epoch are in: it
// restores replayed writes, notes what the replaying writers pushed, then
// serves the rounds that were waiting.
func (e *engine) writesComplete(mf *mfile, ep *mepoch) error {
	ep.wReplay = len(ep.replayed) == mf.nWriters
	if ep.record {
		ep.rec = &matchRec{rounds: map[roundKey]*roundRec{}}
		if old, ok := e.mrecs.Get(ep.key); ok {
			ep.old = old
			ep.rec.rounds = maps.Clone(old.rounds)
			if ep.wReplay {
				ep.writes = old.writes // every writer's, unchanged: no copy
			} else {
				ep.writes = append(ep.writes, recordedWrites(old.writes, ep.replayed)...)
			}
			// Rounds matched afresh must not reuse recorded transfer ids:
			// the replaying writers sent by their records, and a replaying
			// reader posts its recorded receives before any answer.
			for _, r := range old.rounds {
				mf.nextID = max(mf.nextID, r.maxID+1)
			}
		} else if len(ep.replayed) > 0 {
			return fmt.Errorf("dtf: %s: writers replay epoch %d but matcher rank %d has no record of it", mf.key.Path, ep.key.Epoch, e.tr.Rank())
		}
		ep.rec.writes = ep.writes
	}
	for _, q := range ep.queued {
		if err := e.serveRound(mf, ep, q); err != nil {
			return err
		}
	}
	ep.queued = nil
	return nil
}

// pushers returns the world ranks of the writers that replayed.
func (mf *mfile) pushers(ep *mepoch) []int {
	out := make([]int, len(ep.replayed))
	for i, w := range ep.replayed {
		out[i] = mf.writers[w]
	}
	return out
}

// drains takes back what was pushed to a reader (world rank to) that asks
// afresh for a recorded round, or, at its last round, for rounds it never
// asked for. Writers that knew the reader had closed pushed it nothing.
func (ep *mepoch) drains(rk roundKey, to int, last bool) []tagged {
	if ep.old == nil || len(ep.replayed) == 0 {
		return nil
	}
	var out []tagged
	for k, r := range ep.old.rounds {
		if ep.taken[k] || (k != rk && !(last && k.reader == rk.reader)) {
			continue
		}
		ep.taken[k] = true
		for _, t := range r.sched {
			if (ep.wReplay || slices.Contains(ep.replayed, t.T.Writer)) && !slices.Contains(ep.unpushed[t.T.Writer], to) {
				out = append(out, t)
			}
		}
	}
	return out
}

// serveRound answers one reader round: by the replay record when both sides
// match theirs, else by matching the round's reads against the epoch's writes.
// It sends the schedule to the writers and the expectations to the reader,
// telling the reader how long it waited for the writers' epoch: from the
// round's start to the latest writer's epoch end. Both are wall clock
// times, exact on one node; across nodes clock skew blurs them (the
// reader clamps the wait to the round).
func (e *engine) serveRound(mf *mfile, ep *mepoch, m *envelope) error {
	if m.Kind == kRecsQuery {
		return e.send(m.From, &envelope{Kind: kRecs, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, NumRecs: ep.numRecs})
	}
	rk := roundKey{m.Ranks[0], m.Round}
	ep.served[rk] = true
	last := m.Final || m.Closing
	reply := &envelope{Kind: kExpect, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, Round: m.Round, NumRecs: ep.numRecs, Writers: ep.writersAt, Multiple: ep.multiple}
	reads := m.Reads
	if m.Replay {
		rr := (*roundRec)(nil)
		if ep.rec != nil {
			rr = ep.rec.rounds[rk]
		} else if old, ok := e.mrecs.Get(ep.key); ok && ep.multiple {
			// A multiple epoch records nothing, but a reader that does not
			// know it yet may replay a round an earlier session recorded.
			rr = old.rounds[rk]
		}
		if rr == nil {
			reply.Err = fmt.Sprintf("reader rank %d replays round %d, which matcher rank %d has no record of", rk.reader, rk.round, e.tr.Rank())
			return e.send(m.From, reply)
		}
		// The reader's recorded receives take what the replaying writers
		// pushed for this round.
		ep.taken[rk] = true
		if ep.wReplay {
			// Both sides repeat the recorded round: no matching at all. The
			// reader knows from the writers' verdicts, unless it settles.
			if !m.Settle {
				return nil
			}
			reply.Replay = true
			reply.Drain = ep.drains(rk, m.From, last)
			return e.send(m.From, reply)
		}
		reads = rr.reads
		reply.Pushers = mf.pushers(ep)
	}
	reply.Drain = ep.drains(rk, m.From, last)
	start := time.Now()
	s, err := matcher.Match(ep.writes, reads)
	ep.matchTime += time.Since(start)
	if err != nil {
		reply.Err = err.Error()
		return e.send(m.From, reply)
	}
	// Transfer ids interleave the matchers, so no two matchers ever give one
	// writer-reader pair the same data tag.
	self, nmatch := 0, int64(e.cfg.MatcherCount(mf.nWriters))
	for i, w := range mf.writers {
		if w == e.tr.Rank() {
			self = i
		}
	}
	if ep.ids == nil {
		ep.ids = map[int64]bool{}
		if ep.old != nil {
			for _, r := range ep.old.rounds {
				for _, t := range r.sched {
					ep.ids[t.ID] = true
				}
			}
		}
	}
	byWriter := map[int][]tagged{}
	rr := &roundRec{reads: reads}
	for t := range s.All() {
		id, err := e.tags.transferID(&mf.nextID, int(nmatch), self, ep.ids)
		if err != nil {
			reply.Err = fmt.Sprintf("%s: %v", mf.key.Path, err)
			return e.send(m.From, reply)
		}
		rr.maxID = mf.nextID
		byWriter[t.Writer] = append(byWriter[t.Writer], tagged{T: t, ID: id, Peer: m.From})
		reply.Sched = append(reply.Sched, tagged{T: t, ID: id, Peer: mf.writers[t.Writer]})
	}
	reply.Missing = s.Uncovered
	reply.Record = ep.record
	rr.sched = reply.Sched
	for w := range mf.writers {
		ts, any := byWriter[w]
		// When recording, every writer hears about every round, so stale
		// records of rounds that no longer involve it are replaced.
		if !any && !ep.record {
			continue
		}
		msg := &envelope{Kind: kSchedule, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, Round: m.Round, Sched: ts, Peer: m.From, Record: ep.record}
		if err := e.send(mf.writers[w], msg); err != nil {
			return err
		}
	}
	if ep.record {
		ep.rec.rounds[rk] = rr
	}
	return e.send(m.From, reply)
}

// finishEpochs tells the writers about every epoch whose writes are all in,
// whose rounds are all served, and whose readers have all finished it.
func (e *engine) finishEpochs(mf *mfile) error {
	for n, ep := range mf.epochs {
		if mf.writers == nil || ep.fromWriters < mf.nWriters || len(ep.queued) > 0 || mf.nReaders == 0 {
			continue
		}
		all := true
		for r := 0; r < mf.nReaders; r++ {
			done := ep.final[r]
			if ep.multiple {
				done = ep.completed[r]
			}
			if !done && !mf.closed[r] {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		for _, w := range mf.writers {
			if err := e.send(w, &envelope{Kind: kEpochDone, Path: mf.key.Path, Session: mf.key.Session, Epoch: n, Closed: mf.gone}); err != nil {
				return err
			}
		}
		if ep.record {
			e.mrecs.Put(ep.key, 0, ep.rec)
		}
		if f := e.files[mf.key.Path]; f != nil && f.session == mf.key.Session && f.role == roleWriter {
			f.st.MatchTime += ep.matchTime
		}
		delete(mf.epochs, n)
		if ep.closing {
			delete(e.match, mf.key)
		}
	}
	return nil
}
