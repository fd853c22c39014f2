package dtf

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/dtf/stats"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/replay"
	"github.com/couplet-hpc/couplet/transport"
)

// readReq is a get waiting for its round: its pieces and the step that moves
// received data into the user's buffer.
type readReq struct {
	pieces []*piece
	finish []func() error
}

func (f *File) readerOnly() error {
	if f.role != roleReader {
		return nc.Errorf(nc.EPERM, "coupled file %s is being written by this component; reads come from the writer's session", f.path)
	}
	return nil
}

// newReadReq prepares receive pieces for accesses.
func (f *File) newReadReq(reqs []nc.Access) *readReq {
	r := &readReq{}
	for i := range reqs {
		a := &reqs[i]
		data, finish := readTarget(a, f.hdr.Vars[a.Var].Type)
		r.pieces = append(r.pieces, splitStrided(a, data, func() int64 { f.nextID++; return f.nextID })...)
		r.finish = append(r.finish, finish)
	}
	return r
}

// Get serves blocking gets as one round: it returns once the data arrived.
func (f *File) Get(reqs []nc.Access, collective bool) error {
	if err := f.readerOnly(); err != nil {
		return err
	}
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return err
	}
	return f.readRound([]*readReq{f.newReadReq(reqs)}, false, false, collective)
}

// IGet queues nonblocking gets until Wait or Transfer.
func (f *File) IGet(reqs []nc.Access) (int, error) {
	if err := f.readerOnly(); err != nil {
		return 0, err
	}
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return 0, err
	}
	f.nextReq++
	f.igets[f.nextReq] = f.newReadReq(reqs)
	return f.nextReq, nil
}

// Wait completes nonblocking requests: puts on a writer, gets on a reader
// (all the given gets in one round).
func (f *File) Wait(ids []int, collective bool) ([]error, error) {
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return nil, err
	}
	if f.role == roleWriter {
		return f.waitPuts(ids), nil
	}
	st := make([]error, len(ids))
	var batch []*readReq
	for i, id := range ids {
		r, ok := f.igets[id]
		if !ok {
			if _, served := f.served[id]; served {
				delete(f.served, id) // completed by Transfer: waiting on it is a no-op, as in DTF
			} else {
				st[i] = nc.EINVAL_REQUEST
			}
			continue
		}
		delete(f.igets, id)
		batch = append(batch, r)
	}
	err := f.readRound(batch, false, false, collective)
	for i := range st {
		if st[i] == nil {
			st[i] = err
		}
	}
	return st, err
}

// Cancel drops pending requests that have not been transferred.
func (f *File) Cancel(ids []int) ([]error, error) {
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return nil, err
	}
	st := make([]error, len(ids))
	for i, id := range ids {
		if ps, ok := f.iputs[id]; ok {
			drop := map[*piece]bool{}
			for _, p := range ps {
				drop[p] = true
				delete(f.bySeq, p.id)
			}
			kept := f.writes[:0]
			for _, p := range f.writes {
				if !drop[p] {
					kept = append(kept, p)
				}
			}
			f.writes = kept
			delete(f.iputs, id)
		} else if _, ok := f.igets[id]; ok {
			delete(f.igets, id)
		} else {
			st[i] = nc.EINVAL_REQUEST
		}
	}
	return st, nil
}

// pendingGets takes every queued nonblocking get; their ids stay valid for a
// later Wait, which then has nothing left to do.
func (f *File) pendingGets() []*readReq {
	var out []*readReq
	for id, r := range f.igets {
		out = append(out, r)
		delete(f.igets, id)
		f.served[id] = struct{}{}
	}
	return out
}

// readRound sends the reads of reqs to the matchers, waits for what each
// matcher scheduled, receives the boxes straight into the buffers, and then
// converts or fills. final ends the reader's epoch; closing ends its session.
// Collective rounds take part in replay: a reader that matches its record
// omits its reads and posts its recorded receives at once. When every writer
// replayed too, their verdicts (kVerdict) say so and the matchers stay
// silent; otherwise the matchers match the recorded reads afresh.
func (f *File) readRound(reqs []*readReq, final, closing, collective bool) error {
	e := f.e
	start := time.Now()
	var all []*piece
	for _, r := range reqs {
		for _, p := range r.pieces {
			f.byID[p.id] = p
			all = append(all, p)
		}
	}
	// Ids follow the order of the calls: sorted, the round's requests (and so
	// its replay signature) do not depend on how the caller batched them.
	slices.SortFunc(all, func(a, b *piece) int { return cmp.Compare(a.id, b.id) })
	f.st.Requests += int64(len(all))
	round := f.round
	f.round++
	// Only collective, non-closing rounds replay, so that the round numbers
	// that key the records line up across the group's ranks.
	record := f.fc.ReplayIO && collective && !closing
	key := f.replayKey(round)
	var sig uint64
	var old, rec readerRec
	have := false
	if record {
		sig = f.signature(all)
		// Each reader decides alone, without waiting for the others: a
		// matcher serves a round by its record only if the writers replay
		// too, and otherwise matches it (the recorded reads stand in for
		// the omitted ones), so hits and misses may mix in one epoch.
		old, have = e.rrecs.Lookup(key, sig)
		rec = readerRec{}
	}
	M := f.part.Matchers()
	per := make([][]matcher.Read, M)
	for _, p := range all {
		if have {
			break // the matchers hold these reads from the recorded round
		}
		for _, pc := range f.part.Split(p.varid, p.box) {
			per[pc.Matcher] = append(per[pc.Matcher], matcher.Read{Rank: f.me, Var: p.varid, ID: p.id, Box: pc.Box})
		}
	}
	if record {
		f.recEnd = round + 1
	}
	// A reader ending its epoch before rounds it recorded may have been
	// pushed those rounds (see File.pushRecord): it waits for them to drain.
	settle := false
	if f.fc.ReplayIO && (final || closing) {
		end, _ := e.ends.Get(f.replayKey(-1))
		settle = end > round
	}
	replies, hits := 0, 0
	for m := 0; m < M; m++ {
		msg := &envelope{Kind: kReadReqs, Path: f.path, Session: f.session, Epoch: f.epoch, Round: round,
			Reads: per[m], Final: final, Closing: closing, Ranks: []int{f.me, len(f.world)},
			Section: f.fc.Index, Replay: have, Record: record, Sent: start.UnixNano(), Settle: settle}
		if len(per[m]) > 0 || have || !closing || settle {
			replies++
		}
		if err := e.send(f.peers[m], msg); err != nil {
			return err
		}
		f.st.MsgsSent++
	}
	defer clear(f.byID)
	// A replaying reader posts its recorded receives before any matcher
	// answers, so that the data may flow as soon as the writers hear: each
	// matcher that replays too confirms its share, and the shares of those
	// that match afresh are cancelled (the fresh schedule uses new tags).
	early := map[int][]transport.Pending{}
	// Posting receives is data movement, as in any MPI exchange: its time
	// goes to the transfer time, not to the wait for schedules.
	var posting time.Duration
	earlyFrom, earlyTo := start, start
	if have {
		earlyFrom = time.Now()
		for from, m := range old {
			rs, err := f.postRecvs(m.Sched)
			early[from] = rs
			if err != nil {
				f.abandonEarly(early)
				return err
			}
		}
		earlyTo = time.Now()
		posting += earlyTo.Sub(earlyFrom)
	}
	// Post each matcher's receives as soon as its expectations arrive. A
	// round matched afresh although this reader replayed keeps the recorded
	// receives of what the replaying writers pushed (stale): they complete
	// before the fresh schedules (held in fresh) post into the same buffers.
	var recvs, stale []transport.Pending
	type answer struct {
		m     *envelope
		drain []tagged
	}
	var fresh []answer
	var missing []matcher.Uncovered
	var errs []error
	var waited time.Duration // how long the round waited for the writers' epoch end
	got := 0
	// accept posts the receives of one matcher's schedule (pre when already
	// posted) and those of its drains.
	accept := func(m *envelope, pre []transport.Pending, drain []tagged) error {
		if rec != nil {
			rec[m.From] = &envelope{Sched: m.Sched, Missing: m.Missing, From: m.From}
		}
		missing = append(missing, m.Missing...)
		t := time.Now()
		defer func() { posting += time.Since(t) }()
		if pre == nil {
			var err error
			if pre, err = f.postRecvs(m.Sched); err != nil {
				cancelAll(pre)
				return err
			}
		}
		f.expect(m.Sched)
		recvs = append(recvs, pre...)
		drains, err := f.postDrains(drain)
		recvs = append(recvs, drains...)
		return err
	}
	err := e.waitFor(func() string {
		return fmt.Sprintf("schedules for %s (epoch %d, round %d) from the writer's matchers: %d of %d arrived", f.path, f.epoch, round, got, replies)
	}, func() (bool, error) {
		if have && !settle && got == 0 && f.verdictsIn() {
			// Every writer replayed and pushed: the matchers stay silent.
			for from, m := range old {
				pre := early[from]
				delete(early, from)
				if err := accept(m, pre, nil); err != nil {
					return false, err
				}
			}
			got, hits = replies, replies
			f.st.Pushed++
			f.hdr.NumRecs = max(f.hdr.NumRecs, f.vRecs)
			waited = max(0, time.Duration(f.vSent-start.UnixNano()))
			return true, nil
		}
		for {
			m := f.take(kExpect, func(m *envelope) bool { return m.Round == round })
			if m == nil {
				break
			}
			f.st.MsgsRecv++
			got++
			f.multiple = f.multiple || m.Multiple
			f.hdr.NumRecs = max(f.hdr.NumRecs, m.NumRecs)
			waited = max(waited, time.Duration(m.Writers-start.UnixNano()))
			if m.Err != "" {
				errs = append(errs, fmt.Errorf("dtf: %s: matcher: %s", f.path, m.Err))
			}
			pre, posted := early[m.From]
			delete(early, m.From)
			drain := m.Drain
			switch {
			case m.Replay:
				hits++
				if m = old[m.From]; m == nil {
					return false, fmt.Errorf("dtf: %s: a matcher replays round %d, which this reader has no record of", f.path, round)
				}
			case posted:
				kept := keepPushed(pre, old[m.From].Sched, m.Pushers)
				stale = append(stale, kept...)
				e.inFlight += len(kept)
				pre = nil
			}
			if len(stale) > 0 {
				fresh = append(fresh, answer{m, drain})
				continue
			}
			if err := accept(m, pre, drain); err != nil {
				return false, err
			}
		}
		if len(stale) > 0 {
			done, err := transport.Drive(e.tr, stale, 0, tagCtl)
			if err != nil || !done {
				return false, err
			}
			e.inFlight -= len(stale)
			stale = nil
			for _, a := range fresh {
				if err := accept(a.m, nil, a.drain); err != nil {
					return false, err
				}
			}
			fresh = nil
		}
		return got == replies && len(fresh) == 0, nil
	})
	if len(stale) > 0 {
		f.abandon(stale)
	}
	f.abandonEarly(early) // matchers that never answered
	// Every matcher reports the same writers' epoch end, as the latest it
	// saw; the wait is never more than the round itself took. Early posting
	// done while the writers were not there yet was part of that wait.
	elapsed := time.Since(start)
	waited = min(waited, elapsed)
	overlap := max(0, min(earlyTo.Sub(start), waited)-earlyFrom.Sub(start))
	// The reader does no matching: its wait for the schedules splits into
	// the wait for the writers and the rest (the matchers' round trip).
	wait := waited - overlap
	f.st.WaitTime += wait
	f.st.SchedTime += max(0, elapsed-posting-wait)
	xfer := time.Now().Add(-posting)
	if err == nil {
		err = f.waitRecvs(recvs)
	} else {
		f.abandon(recvs)
	}
	f.st.TransferTime += time.Since(xfer)
	if err != nil {
		return err
	}
	errs = append(errs, f.handleMissing(missing))
	for _, r := range reqs {
		for _, fin := range r.finish {
			errs = append(errs, fin())
		}
	}
	err = errors.Join(errs...)
	if record && err == nil && !f.multiple {
		e.rrecs.Put(key, sig, rec)
		if f.st.Replay != stats.Miss {
			f.st.Replay = outcomeOf(replay.Decide(true, hits == replies && replies > 0))
		}
	}
	// In the writer's multiple epoch a transfer is one round of it; the
	// epoch ends at CompleteMultiple or close.
	if closing || (final && !f.multiple) {
		if f.fc.ReplayIO && !f.multiple {
			e.ends.Put(f.replayKey(-1), 0, f.recEnd)
		}
		f.recEnd = 0
		f.endEpoch(err)
	}
	return err
}

// postRecvs starts receiving the scheduled boxes straight into their
// pieces' buffers. On error it returns those it already posted.
func (f *File) postRecvs(sched []tagged) ([]transport.Pending, error) {
	out := make([]transport.Pending, 0, len(sched))
	for _, t := range sched {
		p := f.byID[t.T.ReadID]
		if p == nil {
			return out, fmt.Errorf("dtf: %s: schedule names read %d, which this rank did not ask for", f.path, t.T.ReadID)
		}
		esize := f.hdr.Vars[p.varid].Type.Size()
		q, err := f.e.tr.RecvBlock(t.Peer, f.e.tags.data(f.fileID, t.ID), p.block(esize, t.T.Box))
		if err != nil {
			return out, err
		}
		out = append(out, q)
	}
	return out, nil
}

// postDrains receives transfers pushed to this rank that it no longer
// wants (see File.pushRecord) into scratch buffers, so the writers' sends
// complete. They count as data in flight.
func (f *File) postDrains(drain []tagged) ([]transport.Pending, error) {
	var out []transport.Pending
	for _, t := range drain {
		n := t.T.Box.Count
		blk := transport.Block{Buf: make([]byte, t.T.Box.Volume()*int64(f.hdr.Vars[t.T.Var].Type.Size())),
			ElemSize: f.hdr.Vars[t.T.Var].Type.Size(), Shape: n, Start: make([]int64, len(n)), Count: n}
		q, err := f.e.tr.RecvBlock(t.Peer, f.e.tags.data(f.fileID, t.ID), blk)
		if err != nil {
			return out, err
		}
		f.e.inFlight++
		f.st.Drained++
		out = append(out, q)
	}
	return out, nil
}

// keepPushed sorts a matcher's recorded receives (pre, posted for sched)
// when the round is matched afresh: those from writers that pushed their
// records will take that data and are returned; the others are cancelled.
func keepPushed(pre []transport.Pending, sched []tagged, pushers []int) []transport.Pending {
	var kept []transport.Pending
	for i, q := range pre {
		if slices.Contains(pushers, sched[i].Peer) {
			kept = append(kept, q)
		} else {
			q.Cancel()
		}
	}
	return kept
}

// verdictsIn takes the writers' verdicts of this epoch and reports whether
// every writer's is in: each replayed and pushed by its record.
func (f *File) verdictsIn() bool {
	for {
		m := f.take(kVerdict, func(m *envelope) bool { return m.Epoch <= f.epoch })
		if m == nil {
			break
		}
		f.st.MsgsRecv++
		if m.Epoch < f.epoch {
			continue // an epoch this reader ended without them
		}
		f.verdicts++
		f.vSent = max(f.vSent, m.Sent)
		f.vRecs = max(f.vRecs, m.NumRecs)
	}
	return f.verdicts == len(f.peers)
}

// expect counts a matcher's confirmed schedule, whose receives are posted:
// its bytes and messages, and its receives as data in flight.
func (f *File) expect(sched []tagged) {
	for _, t := range sched {
		f.st.Bytes += t.T.Box.Volume() * int64(f.hdr.Vars[f.byID[t.T.ReadID].varid].Type.Size())
	}
	f.st.MsgsRecv += int64(len(sched))
	f.e.inFlight += len(sched)
}

// abandonEarly cancels recorded receives that no matcher confirmed. They
// were never counted in flight: until a matcher confirms, no writer sends
// them, so waiting for the answer need not poll hot.
func (f *File) abandonEarly(early map[int][]transport.Pending) {
	for from, rs := range early {
		cancelAll(rs)
		delete(early, from)
	}
}

// waitRecvs waits for the posted receives, within the timeout. On failure it
// cancels those still pending, so nothing writes into the buffers after the
// call returned.
func (f *File) waitRecvs(recvs []transport.Pending) error {
	err := f.e.waitFor(func() string {
		return fmt.Sprintf("data of %s from the writers: %d boxes, not all arrived", f.path, len(recvs))
	}, func() (bool, error) { return transport.Drive(f.e.tr, recvs, driveBudget, tagCtl) })
	if err != nil {
		f.abandon(recvs) // cancelling those complete is a no-op
		return err
	}
	f.e.inFlight -= len(recvs)
	return nil
}

// abandon cancels receives in flight that will not be waited for.
func (f *File) abandon(recvs []transport.Pending) {
	cancelAll(recvs)
	f.e.inFlight -= len(recvs)
}

// cancelAll cancels receives.
func cancelAll(recvs []transport.Pending) {
	for _, d := range recvs {
		d.Cancel()
	}
}

// handleMissing reports never-written parts of reads as an error naming the
// variable and box, or fills them when the variable is in fill mode (as
// PnetCDF fills it) or the config says unwritten=fill.
func (f *File) handleMissing(missing []matcher.Uncovered) error {
	var errs []error
	for _, u := range missing {
		p := f.byID[u.ReadID]
		if p == nil {
			continue
		}
		name := f.hdr.Vars[u.Var].Name
		for _, b := range u.Missing {
			if f.fills(u.Var) || f.e.cfg.Unwritten == config.UnwrittenFill {
				fillBox(p, b, f.fillValue(u.Var))
				continue
			}
			errs = append(errs, nc.Errorf(nc.ENODATA, "%s: variable %q: %s was never written by the writer", f.path, name, b))
		}
	}
	return errors.Join(errs...)
}
