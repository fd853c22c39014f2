package protocol

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/replay"
)

// MatcherConfig is what a matcher needs to know about the run.
type MatcherConfig struct {
	// Self is this rank's transport rank.
	Self int
	// IDs is the number of transfer ids per file slot of the data tags, and
	// TagUB the transport's tag bound (for the error when they run out).
	IDs, TagUB int
	// Matchers returns the number of matchers for a writer group of n ranks.
	Matchers func(n int) int
	// Slot maps a session of a [FILE] section to its replay record slot.
	Slot func(section, session int) int
}

// Send is a control message to send to a rank.
type Send struct {
	To  int
	Msg *Envelope
}

// EpochEnd names an epoch of a file session that a matcher finished: every
// writer's requests were in and every reader was done with it.
type EpochEnd struct {
	Path           string
	Session, Epoch int
}

// Ready is what one step of a role asks its driver to do.
type Ready struct {
	Sends []Send     // control messages to send, in order
	Done  []EpochEnd // epochs this matcher finished
	// Matched counts the reader rounds this step matched (box algebra and
	// scheduling); a round served by its replay record counts none, so the
	// driver can tell matching work from bookkeeping.
	Matched int
}

// Matcher is the matcher role of every file session at one rank, as a pure
// state machine: Step takes a received WRITE_REQS, READ_REQS, RECS_QUERY or
// DONE_MULTIPLE and returns the messages to send. Its state is built from
// messages alone, because readers' requests may arrive before this rank has
// itself created the file. It keeps its replay records across sessions.
type Matcher struct {
	cfg   MatcherConfig
	files map[sessKey]*mfile
	recs  *replay.Store[*matchRec]
	out   Ready
}

// NewMatcher returns a matcher with no sessions and no records.
func NewMatcher(cfg MatcherConfig) *Matcher {
	return &Matcher{cfg: cfg, files: map[sessKey]*mfile{}, recs: replay.NewStore[*matchRec]()}
}

// Sessions reports how many file sessions the matcher holds state for.
func (mt *Matcher) Sessions() int { return len(mt.files) }

type sessKey struct {
	Path    string
	Session int
}

// mfile is a matcher's state for one session of one file.
type mfile struct {
	key      sessKey
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
	queued      []*Envelope // read rounds and record queries waiting for the writers' epoch to end
	writersAt   int64       // the latest writer's epoch end (Sent, wall clock)
	final       map[int]bool

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

	// old is the record the replaying writers sent by, and taken its rounds
	// whose pushed transfers a reader took or was told to drain.
	old   *matchRec
	taken map[roundKey]bool

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

func (a roundKey) cmp(b roundKey) int {
	return cmp.Or(cmp.Compare(a.reader, b.reader), cmp.Compare(a.round, b.round))
}

// roundRec is one matched reader round: its reads, the largest transfer id
// used, and the reader's schedule, so the matcher knows what replaying
// writers push.
type roundRec struct {
	reads []matcher.Read
	maxID int64
	sched []Tagged
}

// of returns the round with only the transfers of the given writer group
// ranks.
func (r *roundRec) of(writers []int) *roundRec {
	c := *r
	c.sched = nil
	for _, t := range r.sched {
		if slices.Contains(writers, t.T.Writer) {
			c.sched = append(c.sched, t)
		}
	}
	return &c
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
		ep = &mepoch{final: map[int]bool{}, completed: map[int]bool{}, taken: map[roundKey]bool{}}
		mf.epochs[n] = ep
	}
	return ep
}

func (mt *Matcher) send(to int, m *Envelope) {
	mt.out.Sends = append(mt.out.Sends, Send{to, m})
}

// Step handles one message for the matcher role (From set to the sender's
// transport rank) and returns what to send. An error means the message
// cannot be handled (a malformed or inconsistent request); what a reader
// asked for that cannot be served goes back to it in EXPECT's Err instead.
func (mt *Matcher) Step(m *Envelope) (Ready, error) {
	err := mt.step(m)
	r := mt.out
	mt.out = Ready{}
	return r, err
}

func (mt *Matcher) step(m *Envelope) error {
	switch m.Kind {
	case WriteReqs, ReadReqs, RecsQuery, DoneMultiple:
	default:
		return fmt.Errorf("dtf: matcher got %s", m.Kind)
	}
	if len(m.Ranks) != 2 || m.Ranks[0] < 0 || m.Ranks[0] >= m.Ranks[1] {
		return fmt.Errorf("dtf: %s from world rank %d lacks a valid group rank/size", m.Kind, m.From)
	}
	key := sessKey{m.Path, m.Session}
	mf := mt.files[key]
	if mf == nil {
		mf = &mfile{key: key, epochs: map[int]*mepoch{}, closed: map[int]bool{}}
		mt.files[key] = mf
	}
	rank, size := m.Ranks[0], m.Ranks[1]
	ep := mf.epoch(m.Epoch)
	switch m.Kind {
	case WriteReqs:
		if mf.writers == nil {
			mf.nWriters, mf.writers = size, make([]int, size)
		}
		if size != mf.nWriters {
			return fmt.Errorf("dtf: %s: WRITE_REQS from a writer group of %d ranks, earlier ones said %d", m.Path, size, mf.nWriters)
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
		ep.key = replay.Key{Section: m.Section, Slot: mt.cfg.Slot(m.Section, m.Session), Epoch: m.Epoch, Round: -1}
		if ep.fromWriters == mf.nWriters {
			if err := mt.writesComplete(mf, ep); err != nil {
				return err
			}
		}
	case DoneMultiple:
		mf.nReaders = size
		ep.completed[rank] = true
	case RecsQuery:
		if mf.writers != nil && ep.fromWriters == mf.nWriters {
			mt.serveRound(mf, ep, m)
			return nil
		}
		ep.queued = append(ep.queued, m)
	case ReadReqs:
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
		if Answered(m) {
			if ep.fromWriters == mf.nWriters && mf.writers != nil {
				mt.serveRound(mf, ep, m)
			} else {
				ep.queued = append(ep.queued, m)
			}
		}
	}
	mt.finishEpochs(mf)
	return nil
}

// Answered reports whether the matchers answer a reader's READ_REQS with
// EXPECT: a closing round with nothing to read, replay or drain ends the
// reader's session without a reply.
func Answered(m *Envelope) bool {
	return len(m.Reads) > 0 || m.Replay || !m.Closing || m.Settle
}

// writesComplete runs once every writer's requests for an epoch are in: it
// restores replayed writes, notes what the replaying writers pushed, then
// serves the rounds that were waiting.
func (mt *Matcher) writesComplete(mf *mfile, ep *mepoch) error {
	ep.wReplay = len(ep.replayed) == mf.nWriters
	if ep.record {
		ep.rec = &matchRec{rounds: map[roundKey]*roundRec{}}
		if old, ok := mt.recs.Get(ep.key); ok {
			ep.old = old
			ep.rec.rounds = maps.Clone(old.rounds)
			if !ep.wReplay {
				// A writer that matches afresh starts a new record, so
				// the recorded rounds keep only the transfers of those
				// that replay (and carry their records on): else a later
				// epoch would have readers drain pushes that never come.
				for k, r := range ep.rec.rounds {
					ep.rec.rounds[k] = r.of(ep.replayed)
				}
			}
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
			return fmt.Errorf("dtf: %s: writers replay epoch %d but matcher rank %d has no record of it", mf.key.Path, ep.key.Epoch, mt.cfg.Self)
		}
		ep.rec.writes = ep.writes
	}
	for _, q := range ep.queued {
		mt.serveRound(mf, ep, q)
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
func (ep *mepoch) drains(rk roundKey, to int, last bool) []Tagged {
	if ep.old == nil || len(ep.replayed) == 0 {
		return nil
	}
	var out []Tagged
	for _, k := range slices.SortedFunc(maps.Keys(ep.old.rounds), roundKey.cmp) {
		if ep.taken[k] || (k != rk && !(last && k.reader == rk.reader)) {
			continue
		}
		ep.taken[k] = true
		for _, t := range ep.old.rounds[k].sched {
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
// telling the reader the latest writer's epoch end (wall clock of the
// writers, carried through).
func (mt *Matcher) serveRound(mf *mfile, ep *mepoch, m *Envelope) {
	if m.Kind == RecsQuery {
		mt.send(m.From, &Envelope{Kind: Recs, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, NumRecs: ep.numRecs})
		return
	}
	rk := roundKey{m.Ranks[0], m.Round}
	last := m.Final || m.Closing
	reply := &Envelope{Kind: Expect, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, Round: m.Round, NumRecs: ep.numRecs, Writers: ep.writersAt, Multiple: ep.multiple}
	reads := m.Reads
	if m.Replay {
		rr := (*roundRec)(nil)
		if ep.rec != nil {
			rr = ep.rec.rounds[rk]
		} else if old, ok := mt.recs.Get(ep.key); ok && ep.multiple {
			// A multiple epoch records nothing, but a reader that does not
			// know it yet may replay a round an earlier session recorded.
			rr = old.rounds[rk]
		}
		if rr == nil {
			reply.Err = fmt.Sprintf("reader rank %d replays round %d, which matcher rank %d has no record of", rk.reader, rk.round, mt.cfg.Self)
			mt.send(m.From, reply)
			return
		}
		// The reader's recorded receives take what the replaying writers
		// pushed for this round.
		ep.taken[rk] = true
		if ep.wReplay {
			// Both sides repeat the recorded round: no matching at all. The
			// reader knows from the writers' verdicts, unless it settles.
			if !m.Settle {
				return
			}
			reply.Replay = true
			reply.Drain = ep.drains(rk, m.From, last)
			mt.send(m.From, reply)
			return
		}
		reads = rr.reads
		reply.Pushers = mf.pushers(ep)
	}
	reply.Drain = ep.drains(rk, m.From, last)
	mt.out.Matched++
	s, err := matcher.Match(ep.writes, reads)
	if err != nil {
		reply.Err = err.Error()
		mt.send(m.From, reply)
		return
	}
	// Transfer ids interleave the matchers, so no two matchers ever give one
	// writer-reader pair the same data tag.
	self, nmatch := 0, mt.cfg.Matchers(mf.nWriters)
	for i, w := range mf.writers {
		if w == mt.cfg.Self {
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
	byWriter := map[int][]Tagged{}
	rr := &roundRec{reads: reads}
	for t := range s.All() {
		id, err := TransferID(mt.cfg.IDs, mt.cfg.TagUB, &mf.nextID, nmatch, self, ep.ids)
		if err != nil {
			reply.Err = fmt.Sprintf("%s: %v", mf.key.Path, err)
			mt.send(m.From, reply)
			return
		}
		rr.maxID = mf.nextID
		byWriter[t.Writer] = append(byWriter[t.Writer], Tagged{T: t, ID: id, Peer: m.From})
		reply.Sched = append(reply.Sched, Tagged{T: t, ID: id, Peer: mf.writers[t.Writer]})
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
		mt.send(mf.writers[w], &Envelope{Kind: Schedule, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, Round: m.Round, Sched: ts, Peer: m.From, Record: ep.record})
	}
	if ep.record {
		ep.rec.rounds[rk] = rr
	}
	mt.send(m.From, reply)
}

// finishEpochs tells the writers about every epoch whose writes are all in,
// whose rounds are all served, and whose readers have all finished it.
func (mt *Matcher) finishEpochs(mf *mfile) {
	for _, n := range slices.Sorted(maps.Keys(mf.epochs)) {
		ep := mf.epochs[n]
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
			mt.send(w, &Envelope{Kind: EpochDone, Path: mf.key.Path, Session: mf.key.Session, Epoch: n, Closed: slices.Clone(mf.gone)})
		}
		if ep.record {
			mt.recs.Put(ep.key, 0, ep.rec)
		}
		mt.out.Done = append(mt.out.Done, EpochEnd{mf.key.Path, mf.key.Session, n})
		delete(mf.epochs, n)
		if ep.closing {
			delete(mt.files, mf.key)
		}
	}
}

// TransferID hands out matcher self's (of nmatch) next transfer id for one
// epoch of one file and advances its counter, with ids transfer ids per file
// slot under the tag bound ub. Ids interleave the matchers (id % nmatch ==
// self), so two matchers never give one pair the same tag, and wrap within
// the slot, skipping ids used already in the epoch (used, which TransferID
// extends). More transfers in one epoch at one matcher than the slot holds
// is an error.
func TransferID(ids, ub int, counter *int64, nmatch, self int, used map[int64]bool) (int64, error) {
	k := int64(ids / nmatch)
	for range k {
		id := *counter%k*int64(nmatch) + int64(self)
		*counter++
		if !used[id] {
			used[id] = true
			return id, nil
		}
	}
	return 0, fmt.Errorf("dtf: an epoch needs more than %d transfers at one of %d matchers: the tag bound %d leaves %d transfer ids per file (use fewer, larger requests, or more matchers)", k, nmatch, ub, ids)
}
