package protocol

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/replay"
)

// Post is a receive the reader role asks its driver to post: the scheduled
// transfer T, from T.Peer on T's data tag, into the buffer of read
// T.T.ReadID (or, for a drain, into scratch). The driver names the posted
// receive by ID in what it tells the role later.
type Post struct {
	ID int
	T  Tagged
	// Drain: a transfer pushed to this rank that it no longer wants; it is
	// received into scratch so that the writer's send completes.
	Drain bool
	// Early: posted from the replay record before any matcher confirmed
	// it; no writer sends it before the confirmation, so it is not data in
	// flight yet.
	Early bool
}

// ReaderReady is what one step of the reader role asks its driver to do,
// in this order: send, cancel, post, then keep and confirm (which may name
// receives posted by the same step: a round that starts after every
// writer's verdict of the epoch came confirms its early receives at once).
type ReaderReady struct {
	Sends []Send // control messages to send, in order
	Posts []Post // receives to post, in order
	// Confirm names early receives a matcher confirmed: data now expected.
	Confirm []int
	// Keep names early receives of a round matched afresh that still take
	// what the replaying writers pushed (stale): data in flight that the
	// reader does not want; fresh schedules post after they complete.
	Keep []int
	// Cancel names posted receives nobody will send to.
	Cancel []int
	// Pushed: every writer replayed and pushed by its record, which the
	// writers' verdicts said, and the matchers stay silent.
	Pushed bool
}

// Reader is the reader role of one session of a coupled file at one rank,
// as a pure state machine. StartRound sends a round of reads to the
// matchers (or, when the round equals its replay record, posts the
// recorded receives at once); Step takes the matchers' EXPECT and the
// writers' VERDICT and asks for the receives to post; StaleDone tells it
// that the stale receives completed; once Answered, the driver waits for
// Receives and then calls EndRound. Replay and the epoch rules live here.
type Reader struct {
	s    Session
	recs *Records

	epoch, round int
	recEnd       int   // one past the last round recorded for replay in this epoch
	verdicts     int   // writers that replayed this epoch and said so (VERDICT)
	vSent        int64 // the latest of their epoch ends (wall clock, Unix ns)
	vRecs        int64 // the largest record count they reported
	multiple     bool  // the writers' epoch is a multiple one (the matchers said so)
	numRecs      int64
	nextPost     int

	r   *round
	out ReaderReady
}

// round is the state of one read round.
type round struct {
	n                      int
	final, closing, record bool
	have, settle           bool
	sig                    uint64
	old, rec               readerRec
	replies, got, hits     int
	early                  map[int][]int // matcher world rank -> its early receives (by old[m].Sched order)
	stale                  []int
	fresh                  []answer // answers held until the stale receives complete
	recvs                  []int
	missing                []matcher.Uncovered
	errs                   []error
	writersAt              int64
	answered               bool
	pushed                 bool
	ticks                  int
}

type answer struct {
	m     *Envelope
	drain []Tagged
}

// NewReader returns the reader role of session s, keeping its replay
// records in recs.
func NewReader(s Session, recs *Records) *Reader {
	return &Reader{s: s, recs: recs}
}

// SetPartition replaces the matcher partition after the header changed (a
// redefinition): later requests are cut by it.
func (r *Reader) SetPartition(p *matcher.Partition) { r.s.Part = p }

// Epoch is the epoch the reader is in.
func (r *Reader) Epoch() int { return r.epoch }

// Multiple reports whether the matchers said the writers' current epoch is
// a multiple one (dtf_transfer_multiple).
func (r *Reader) Multiple() bool { return r.multiple }

// NumRecs is the largest record count the writers reported so far.
func (r *Reader) NumRecs() int64 { return r.numRecs }

func (r *Reader) ready() ReaderReady {
	o := r.out
	r.out = ReaderReady{}
	return o
}

func (r *Reader) post(t Tagged, drain, early bool) int {
	r.nextPost++
	r.out.Posts = append(r.out.Posts, Post{ID: r.nextPost, T: t, Drain: drain, Early: early})
	return r.nextPost
}

// StartRound sends the reads ps to the matchers. final ends the reader's
// epoch; closing ends its session. now (the driver's wall clock, Unix ns)
// travels with the requests for the wait statistics. Collective rounds take part in replay: a reader that
// matches its record omits its reads and posts its recorded receives at
// once. When every writer replayed too, their verdicts say so and the
// matchers stay silent; otherwise the matchers match the recorded reads
// afresh.
func (r *Reader) StartRound(ps []Piece, final, closing, collective bool, now int64) ReaderReady {
	s := &r.s
	// Ids follow the order of the calls: sorted, the round's requests (and
	// so its replay signature) do not depend on how the caller batched them.
	ps = slices.SortedFunc(slices.Values(ps), func(a, b Piece) int { return cmp.Compare(a.ID, b.ID) })
	rd := &round{n: r.round, final: final, closing: closing, early: map[int][]int{}}
	r.r = rd
	r.round++
	// Only collective, non-closing rounds replay, so that the round numbers
	// that key the records line up across the group's ranks.
	rd.record = s.Replay && collective && !closing
	if rd.record {
		rd.sig = s.Signature(ps)
		// Each reader decides alone, without waiting for the others: a
		// matcher serves a round by its record only if the writers replay
		// too, and otherwise matches it (the recorded reads stand in for
		// the omitted ones), so hits and misses may mix in one epoch.
		rd.old, rd.have = r.recs.readers.Lookup(s.key(r.epoch, rd.n), rd.sig)
		rd.rec = readerRec{}
		r.recEnd = rd.n + 1
	}
	ms := s.matchers()
	per := make([][]matcher.Read, len(ms))
	for _, p := range ps {
		if rd.have {
			break // the matchers hold these reads from the recorded round
		}
		for _, pc := range s.Part.Split(p.Var, p.Box) {
			per[pc.Matcher] = append(per[pc.Matcher], matcher.Read{Rank: s.Rank, Var: p.Var, ID: p.ID, Box: pc.Box})
		}
	}
	// A reader ending its epoch before rounds it recorded may have been
	// pushed those rounds (see Writer.pushRecord): it waits for them to drain.
	// A replaying round takes its own pushes by its recorded receives, so
	// only the rounds after it count.
	if s.Replay && (final || closing) {
		end, _ := r.recs.ends.Get(s.key(r.epoch, -1))
		next := rd.n
		if rd.have {
			next++
		}
		rd.settle = end > next
	}
	for m, to := range ms {
		msg := &Envelope{Kind: ReadReqs, Path: s.Path, Session: s.Session, Epoch: r.epoch, Round: rd.n,
			Reads: per[m], Final: final, Closing: closing, Ranks: s.ranks(),
			Section: s.Section, Replay: rd.have, Record: rd.record, Sent: now, Settle: rd.settle}
		if Answered(msg) {
			rd.replies++
		}
		r.out.Sends = append(r.out.Sends, Send{to, msg})
	}
	// A replaying reader posts its recorded receives before any matcher
	// answers, so that the data may flow as soon as the writers hear: each
	// matcher that replays too confirms its share, and the shares of those
	// that match afresh are cancelled (the fresh schedules use new tags).
	if rd.have {
		for _, from := range slices.Sorted(maps.Keys(rd.old)) {
			for _, t := range rd.old[from].Sched {
				rd.early[from] = append(rd.early[from], r.post(t, false, true))
			}
		}
	}
	r.tryVerdicts()
	r.checkAnswered()
	return r.ready()
}

// Accepts reports whether m is for this reader now: an EXPECT of the
// current round, or a VERDICT of this or an earlier epoch.
func (r *Reader) Accepts(m *Envelope) bool {
	if m.Path != r.s.Path || m.Session != r.s.Session {
		return false
	}
	switch m.Kind {
	case Expect:
		return r.r != nil && !r.r.answered && m.Round == r.r.n
	case Verdict:
		return m.Epoch <= r.epoch
	}
	return false
}

// Step takes a matcher's EXPECT of the current round or a writer's
// VERDICT. An error ends the round (the driver cancels what it posted and
// calls Abort).
func (r *Reader) Step(m *Envelope) (ReaderReady, error) {
	if !r.Accepts(m) {
		return ReaderReady{}, fmt.Errorf("dtf: %s: reader of session %d epoch %d got %s for session %d epoch %d round %d", r.s.Path, r.s.Session, r.epoch, m.Kind, m.Session, m.Epoch, m.Round)
	}
	if m.Kind == Verdict {
		if m.Epoch == r.epoch { // earlier: an epoch this reader ended without them
			r.verdicts++
			r.vSent = max(r.vSent, m.Sent)
			r.vRecs = max(r.vRecs, m.NumRecs)
		}
		if r.r != nil {
			r.tryVerdicts()
			r.checkAnswered()
		}
		return r.ready(), nil
	}
	rd := r.r
	rd.got++
	r.multiple = r.multiple || m.Multiple
	r.numRecs = max(r.numRecs, m.NumRecs)
	rd.writersAt = max(rd.writersAt, m.Writers)
	if m.Err != "" {
		rd.errs = append(rd.errs, fmt.Errorf("dtf: %s: matcher: %s", r.s.Path, m.Err))
	}
	pre, posted := rd.early[m.From]
	delete(rd.early, m.From)
	drain := m.Drain
	switch {
	case m.Replay:
		rd.hits++
		if m = rd.old[m.From]; m == nil {
			return r.ready(), fmt.Errorf("dtf: %s: a matcher replays round %d, which this reader has no record of", r.s.Path, rd.n)
		}
	case posted:
		// The round is matched afresh although this reader replayed: the
		// recorded receives of what the replaying writers pushed take that
		// data (stale) before the fresh schedules post into the same
		// buffers; the others are cancelled.
		for i, id := range pre {
			if slices.Contains(m.Pushers, rd.old[m.From].Sched[i].Peer) {
				rd.stale = append(rd.stale, id)
				r.out.Keep = append(r.out.Keep, id)
			} else {
				r.out.Cancel = append(r.out.Cancel, id)
			}
		}
		pre = nil
	}
	if len(rd.stale) > 0 {
		rd.fresh = append(rd.fresh, answer{m, drain})
	} else {
		r.accept(m, pre, drain)
	}
	r.checkAnswered()
	return r.ready(), nil
}

// tryVerdicts serves a replaying round by the record once every writer's
// verdict is in and no matcher answered: every writer replayed and pushed.
func (r *Reader) tryVerdicts() {
	rd := r.r
	if !rd.have || rd.settle || rd.got != 0 || rd.answered || r.verdicts != len(r.s.Peers) {
		return
	}
	for _, from := range slices.Sorted(maps.Keys(rd.old)) {
		pre := rd.early[from]
		delete(rd.early, from)
		r.accept(rd.old[from], pre, nil)
	}
	rd.got, rd.hits = rd.replies, rd.replies
	rd.pushed, r.out.Pushed = true, true
	r.numRecs = max(r.numRecs, r.vRecs)
	rd.writersAt = r.vSent
}

// accept takes one matcher's schedule (pre: its receives, already posted
// early) and its drains.
func (r *Reader) accept(m *Envelope, pre []int, drain []Tagged) {
	rd := r.r
	if rd.rec != nil {
		rd.rec[m.From] = &Envelope{Sched: m.Sched, Missing: m.Missing, From: m.From}
	}
	rd.missing = append(rd.missing, m.Missing...)
	if pre == nil {
		for _, t := range m.Sched {
			pre = append(pre, r.post(t, false, false))
		}
	} else {
		r.out.Confirm = append(r.out.Confirm, pre...)
	}
	rd.recvs = append(rd.recvs, pre...)
	for _, t := range drain {
		rd.recvs = append(rd.recvs, r.post(t, true, false))
	}
}

// Stale names the receives that must complete (StaleDone) before the
// round's fresh schedules are posted.
func (r *Reader) Stale() []int {
	if r.r == nil {
		return nil
	}
	return r.r.stale
}

// StaleDone tells the role that the stale receives completed: it posts the
// fresh schedules it held.
func (r *Reader) StaleDone() ReaderReady {
	rd := r.r
	rd.stale = nil
	for _, a := range rd.fresh {
		r.accept(a.m, nil, a.drain)
	}
	rd.fresh = nil
	r.checkAnswered()
	return r.ready()
}

func (r *Reader) checkAnswered() {
	rd := r.r
	if rd.answered || rd.got < rd.replies || len(rd.fresh) > 0 || len(rd.stale) > 0 {
		return
	}
	rd.answered = true
	// Early receives of matchers that never answered: none are expected.
	for _, from := range slices.Sorted(maps.Keys(rd.early)) {
		r.out.Cancel = append(r.out.Cancel, rd.early[from]...)
	}
	clear(rd.early)
}

// Answered reports whether every matcher answered the round (or the
// writers' verdicts did): what remains is to wait for Receives.
func (r *Reader) Answered() bool { return r.r != nil && r.r.answered }

// Receives names the posted receives the round waits for.
func (r *Reader) Receives() []int {
	if r.r == nil {
		return nil
	}
	return r.r.recvs
}

// Missing returns the parts of the round's reads that nobody wrote.
func (r *Reader) Missing() []matcher.Uncovered { return r.r.missing }

// WritersAt is the latest writer's epoch end (wall clock, Unix ns) that the
// matchers or the verdicts reported for this round.
func (r *Reader) WritersAt() int64 { return r.r.writersAt }

// Waiting describes what the round waits for, for a timeout error.
func (r *Reader) Waiting() string {
	rd := r.r
	if rd == nil {
		return fmt.Sprintf("nothing (%s epoch %d)", r.s.Path, r.epoch)
	}
	if !rd.answered {
		return fmt.Sprintf("schedules for %s (epoch %d, round %d) from the writer's matchers: %d of %d arrived", r.s.Path, r.epoch, rd.n, rd.got, rd.replies)
	}
	return fmt.Sprintf("data of %s from the writers: %d boxes, not all arrived", r.s.Path, len(rd.recvs))
}

// Abort ends a round that failed (a timeout, a transport error, an error
// from Step): nothing is recorded and the epoch goes on. The driver cancels
// what it posted.
func (r *Reader) Abort() { r.r = nil }

// EndRound ends a round whose receives completed, with err the round's
// outcome: the matchers' errors, what nobody wrote, the conversions. It
// returns the replay outcome of a recorded round (Off otherwise) and
// whether the reader's epoch ended. In the writer's multiple epoch a
// transfer is one round of it; the epoch ends at CompleteMultiple or close.
func (r *Reader) EndRound(err error) (replay.Outcome, bool) {
	rd := r.r
	r.r = nil
	out := replay.Off
	if rd.record && err == nil && !r.multiple {
		r.recs.readers.Put(r.s.key(r.epoch, rd.n), rd.sig, rd.rec)
		out = replay.Decide(true, rd.hits == rd.replies && rd.replies > 0)
	}
	if rd.closing || (rd.final && !r.multiple) {
		if r.s.Replay && !r.multiple {
			// Never lowered: the matchers' records keep every round ever
			// recorded for the epoch, and the writers push them all, so a
			// later close must still settle for rounds beyond this one.
			k := r.s.key(r.epoch, -1)
			end, _ := r.recs.ends.Get(k)
			r.recs.ends.Put(k, 0, max(end, r.recEnd))
		}
		r.endEpoch()
		return out, true
	}
	return out, false
}

// Errs returns the matchers' errors of the round.
func (r *Reader) Errs() error { return errors.Join(r.r.errs...) }

func (r *Reader) endEpoch() {
	r.recEnd = 0
	r.epoch++
	r.verdicts, r.vSent, r.vRecs = 0, 0, 0
	r.multiple = false
}

// CompleteMultiple ends, after the reader's last round, the writers'
// multiple epoch (DTF's dtf_complete_multiple): every matcher hears that
// this rank is done. It is an error when the epoch is not a multiple one.
func (r *Reader) CompleteMultiple() (ReaderReady, error) {
	if !r.multiple {
		return ReaderReady{}, fmt.Errorf("dtf: CompleteMultiple: the writers' epoch %d of %s is not a multiple transfer (dtf_transfer_multiple), or this reader made no transfer in it", r.epoch, r.s.Path)
	}
	for _, to := range r.s.matchers() {
		r.out.Sends = append(r.out.Sends, Send{to, &Envelope{Kind: DoneMultiple, Path: r.s.Path, Session: r.s.Session, Epoch: r.epoch, Ranks: r.s.ranks()}})
	}
	r.endEpoch()
	return r.ready(), nil
}

// Tick counts one tick of waiting in a round; after limit ticks (limit >
// 0) it returns the timeout error naming what is missing.
func (r *Reader) Tick(limit int) error {
	if r.r == nil {
		return nil
	}
	r.r.ticks++
	if limit > 0 && r.r.ticks >= limit {
		return fmt.Errorf("dtf: timed out waiting for %s", r.Waiting())
	}
	return nil
}
