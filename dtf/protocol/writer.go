package protocol

import (
	"fmt"
	"maps"
	"slices"

	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/replay"
)

// WriterReady is what one step of the writer role asks its driver to do.
type WriterReady struct {
	Sends []Send   // control messages to send, in order
	Data  []Tagged // scheduled transfers to start, straight from the writes (Seq), to Peer
}

// Writer is the writer role of one session of a coupled file at one rank,
// as a pure state machine. EndEpoch ships the epoch's writes to the
// matchers (or, when they equal the replay record, pushes by the record
// at once); Step takes the matchers' SCHEDULE and EPOCH_DONE; the epoch is
// over when MatchersDone and the driver's data sends completed, and Finish
// then keeps the record. Replay and its decision live here.
type Writer struct {
	s    Session
	recs *Records

	epoch int
	gone  map[int]bool // world ranks of readers that closed this session (EPOCH_DONE)

	// the epoch being ended
	active   bool
	multiple bool
	sig      uint64
	outcome  replay.Outcome
	rec      writerRec // the record being built or replayed, nil when not recording
	dones    int
	peerErr  error
	ticks    int
	out      WriterReady
}

// NewWriter returns the writer role of session s, keeping its replay
// records in recs.
func NewWriter(s Session, recs *Records) *Writer {
	return &Writer{s: s, recs: recs, gone: map[int]bool{}}
}

// SetPartition replaces the matcher partition after the header changed (a
// redefinition): later requests are cut by it.
func (w *Writer) SetPartition(p *matcher.Partition) { w.s.Part = p }

// Epoch is the epoch the writer is in.
func (w *Writer) Epoch() int { return w.epoch }

// Gone reports whether the reader at world rank r closed the session.
func (w *Writer) Gone(r int) bool { return w.gone[r] }

// Outcome is the replay outcome of the epoch being ended.
func (w *Writer) Outcome() replay.Outcome { return w.outcome }

func (w *Writer) ready() WriterReady {
	r := w.out
	w.out = WriterReady{}
	return r
}

func (w *Writer) send(to int, m *Envelope) { w.out.Sends = append(w.out.Sends, Send{to, m}) }

// EndEpoch ends the writer's epoch with its writes (in call order), its
// record count and the wall clock now (Unix ns, carried to the readers for
// their wait statistics). closing ends the session; multiple serves every
// reader transfer until each reader is done with it (DTF's
// dtf_transfer_multiple), and neither records nor replays.
//
// Each writer decides replay alone: the matchers take a hit writer's
// writes from their record, and serve by the record only when every writer
// and the reader hit.
func (w *Writer) EndEpoch(writes []Piece, numRecs int64, closing, multiple bool, now int64) WriterReady {
	s := &w.s
	w.active, w.multiple, w.dones, w.peerErr, w.ticks = true, multiple, 0, nil, 0
	w.outcome, w.rec = replay.Off, nil
	record := s.Replay && !multiple
	if record {
		w.sig = s.Signature(writes)
		old, have := w.recs.writers.Lookup(s.key(w.epoch, -1), w.sig)
		w.outcome = replay.Decide(true, have)
		w.rec = writerRec{}
		if have {
			w.rec = maps.Clone(old)
		}
	}
	hit := w.outcome == replay.Hit
	ms := s.matchers()
	per := make([][]matcher.Write, len(ms))
	for _, p := range writes {
		if hit {
			break // the matchers hold these writes from the recorded epoch
		}
		for _, pc := range s.Part.Split(p.Var, p.Box) {
			per[pc.Matcher] = append(per[pc.Matcher], matcher.Write{Rank: s.Rank, Var: p.Var, Seq: p.ID, Box: pc.Box})
		}
	}
	// A replaying writer pushes nothing to readers it knows closed the
	// session, and says which: a matcher may hear of a reader's close
	// before this writer did, and must not have that reader drain pushes
	// that never come.
	var unpushed []int
	if hit {
		unpushed = slices.Sorted(maps.Keys(w.gone))
	}
	for m, to := range ms {
		w.send(to, &Envelope{Kind: WriteReqs, Path: s.Path, Session: s.Session, Epoch: w.epoch, FileID: s.FileID,
			NumRecs: numRecs, Writes: per[m], Final: closing, Ranks: s.ranks(),
			Section: s.Section, Replay: hit, Record: record, Sent: now, Multiple: multiple, Closed: unpushed})
	}
	if hit {
		w.pushRecord(numRecs, now)
	}
	return w.ready()
}

// pushRecord sends by this writer's record at once, every recorded round,
// and tells each reader of the record that it did: a reader that replays
// too and hears this from every writer needs no word from the matchers. Any
// reader round that does not replay is matched afresh, and the matchers
// have the reader drain what was pushed to it.
func (w *Writer) pushRecord(numRecs, now int64) {
	// The verdicts go first: posting the sends is data movement, which the
	// readers wait for as such.
	keys := slices.SortedFunc(maps.Keys(w.rec), func(a, b schedKey) int {
		return slices.Compare([]int{a.matcher, a.reader, a.round}, []int{b.matcher, b.reader, b.round})
	})
	told := map[int]bool{}
	for _, k := range keys {
		if told[k.reader] || w.gone[k.reader] {
			continue
		}
		told[k.reader] = true
		w.send(k.reader, &Envelope{Kind: Verdict, Path: w.s.Path, Session: w.s.Session, Epoch: w.epoch, NumRecs: numRecs, Sent: now})
	}
	for _, k := range keys {
		if w.gone[k.reader] {
			continue // it closed the session in an earlier epoch: nothing would drain these
		}
		w.out.Data = append(w.out.Data, w.rec[k]...)
	}
}

// Accepts reports whether m is a message of this writer's current epoch
// (SCHEDULE or EPOCH_DONE of this session).
func (w *Writer) Accepts(m *Envelope) bool {
	return m.Path == w.s.Path && m.Session == w.s.Session &&
		(m.Kind == Schedule || m.Kind == EpochDone && m.Epoch == w.epoch)
}

// Step takes a matcher's SCHEDULE (the sends to start, recorded when the
// matcher records the round) or EPOCH_DONE of the current epoch.
func (w *Writer) Step(m *Envelope) (WriterReady, error) {
	if !w.Accepts(m) {
		return WriterReady{}, fmt.Errorf("dtf: %s: writer of session %d epoch %d got %s for session %d epoch %d", w.s.Path, w.s.Session, w.epoch, m.Kind, m.Session, m.Epoch)
	}
	switch m.Kind {
	case Schedule:
		if m.Record && w.rec != nil {
			w.rec[schedKey{m.From, m.Peer, m.Round}] = m.Sched
		}
		w.out.Data = append(w.out.Data, m.Sched...)
	case EpochDone:
		w.dones++
		for _, r := range m.Closed {
			w.gone[r] = true
		}
		if m.Err != "" && w.peerErr == nil {
			w.peerErr = fmt.Errorf("dtf: %s: %s", w.s.Path, m.Err)
		}
	}
	return w.ready(), nil
}

// MatchersDone reports whether every matcher reported every reader done
// with the epoch. The epoch is over once the driver's data sends completed
// too.
func (w *Writer) MatchersDone() bool { return w.active && w.dones == len(w.s.matchers()) }

// Waiting describes what the epoch waits for, for a timeout error.
func (w *Writer) Waiting() string {
	what := ""
	if w.multiple {
		what = ", a multiple transfer that each reader ends with dtf_complete_multiple or its close"
	}
	return fmt.Sprintf("readers of %s (epoch %d%s): %d of %d matchers done", w.s.Path, w.epoch, what, w.dones, len(w.s.matchers()))
}

// Tick counts one tick of waiting for the epoch (for the matchers, or for
// the driver's data sends); after limit ticks (limit > 0) it returns the
// timeout error naming what is missing.
func (w *Writer) Tick(limit int) error {
	if !w.active {
		return nil
	}
	w.ticks++
	if limit > 0 && w.ticks >= limit {
		return fmt.Errorf("dtf: timed out waiting for %s", w.Waiting())
	}
	return nil
}

// Finish ends the epoch with the driver's outcome err (nil: every matcher
// done and every send complete) and returns the epoch's error: err, or what
// a matcher reported. A clean epoch keeps its replay record.
func (w *Writer) Finish(err error) error {
	if err == nil {
		err = w.peerErr
	}
	if err == nil && w.rec != nil {
		w.recs.writers.Put(w.s.key(w.epoch, -1), w.sig, w.rec)
	}
	w.active, w.rec = false, nil
	w.epoch++
	return err
}
