package dtf

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/replay"
)

// recordWrites turns accesses into write pieces. Data is copied when copyData
// says so or when the layout or type needs packing; otherwise the pieces
// alias the user's buffer until the epoch ends.
func (f *File) recordWrites(reqs []nc.Access, copyData bool) ([]*piece, error) {
	var out []*piece
	var rangeErr error
	for i := range reqs {
		a := &reqs[i]
		vt := f.hdr.Vars[a.Var].Type
		data, err := packWrite(a, vt, copyData)
		if nc.Code(err) == nc.ERANGE {
			rangeErr = err
		} else if err != nil {
			return nil, err
		}
		ps := splitStrided(a, data, func() int64 { f.nextSeq++; return f.nextSeq })
		for _, p := range ps {
			f.bySeq[p.id] = p
			if f.hdr.IsRecordVar(a.Var) {
				f.hdr.NumRecs = max(f.hdr.NumRecs, p.box.Start[0]+p.box.Count[0])
			}
		}
		f.writes = append(f.writes, ps...)
		out = append(out, ps...)
		f.st.Requests++
	}
	return out, rangeErr
}

// copyBlocking says whether a blocking put must copy: always, unless the
// config's buffer_data=0 lets explicit-epoch users (those who call Transfer
// on this file section) keep their buffers untouched until Transfer.
func (f *File) copyBlocking() bool {
	return f.e.cfg.BufferData || !f.e.explicit[f.fc.Index]
}

// Put records blocking puts. PnetCDF promises the buffer is reusable on
// return, so the data is copied unless copyBlocking says otherwise.
func (f *File) Put(reqs []nc.Access, collective bool) error {
	if err := f.writerOnly(); err != nil {
		return err
	}
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return err
	}
	_, err := f.recordWrites(reqs, f.copyBlocking())
	return err
}

// IPut records nonblocking puts; the buffer belongs to couplet until Wait.
func (f *File) IPut(reqs []nc.Access) (int, error) {
	if err := f.writerOnly(); err != nil {
		return 0, err
	}
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return 0, err
	}
	ps, err := f.recordWrites(reqs, false)
	if err != nil && nc.Code(err) != nc.ERANGE {
		return 0, err
	}
	f.nextReq++
	f.iputs[f.nextReq] = ps
	return f.nextReq, err
}

// BPut records buffered puts: the data is copied into the attached buffer's
// budget at once.
func (f *File) BPut(reqs []nc.Access) (int, error) {
	if err := f.writerOnly(); err != nil {
		return 0, err
	}
	need := int64(0)
	for i := range reqs {
		need += reqs[i].Len() * int64(f.hdr.Vars[reqs[i].Var].Type.Size())
	}
	if f.bputSize == 0 {
		return 0, nc.ENULLABUF
	}
	if f.bputUsed+need > f.bputSize {
		return 0, nc.EINSUFFBUF
	}
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return 0, err
	}
	_, err := f.recordWrites(reqs, true)
	if err != nil && nc.Code(err) != nc.ERANGE {
		return 0, err
	}
	f.bputUsed += need
	f.nextReq++
	f.iputs[f.nextReq] = nil // already copied: nothing to secure at wait
	return f.nextReq, err
}

// AttachBuffer sets the budget for buffered puts.
func (f *File) AttachBuffer(size int64) error {
	if f.bputSize != 0 {
		return nc.EPREVATTACHBUF
	}
	f.bputSize = size
	return nil
}

// DetachBuffer removes the budget; pending buffered puts forbid it.
func (f *File) DetachBuffer() error {
	if f.bputSize == 0 {
		return nc.ENULLABUF
	}
	if f.bputUsed > 0 {
		return nc.EPENDINGBPUT
	}
	f.bputSize = 0
	return nil
}

// BufferUsage reports the bytes of the attached buffer in use.
func (f *File) BufferUsage() (int64, error) {
	if f.bputSize == 0 {
		return 0, nc.ENULLABUF
	}
	return f.bputUsed, nil
}

// waitPuts completes nonblocking puts: after Wait the user may reuse the
// buffers, so aliased data is copied now unless the explicit-epoch contract
// (buffer_data=0) says the user keeps them until Transfer.
func (f *File) waitPuts(ids []int) []error {
	st := make([]error, len(ids))
	for i, id := range ids {
		ps, ok := f.iputs[id]
		if !ok {
			st[i] = nc.EINVAL_REQUEST
			continue
		}
		delete(f.iputs, id)
		if !f.copyBlocking() {
			continue
		}
		copied := map[*byte][]byte{}
		for _, p := range ps {
			if len(p.data) == 0 {
				continue
			}
			c, ok := copied[&p.data[0]]
			if !ok {
				c = append([]byte(nil), p.data...)
				copied[&p.data[0]] = c
			}
			p.data = c
		}
	}
	f.bputUsed = 0
	return st
}

// endWriterEpoch ships this rank's writes to the matchers and serves their
// schedules until every matcher reports every reader done with the epoch. A
// multiple epoch (dtf_transfer_multiple) serves every reader transfer until
// each reader is done with it (CompleteMultiple or close); it neither records
// nor replays.
func (f *File) endWriterEpoch(closing, multiple bool) error {
	e := f.e
	start := time.Now()
	key := f.replayKey(-1)
	var sig uint64
	outcome := replay.Off
	f.wrec = nil
	if f.fc.ReplayIO && !multiple {
		// Each writer decides alone: the matchers take a hit writer's
		// writes from their record and serve by the record only when every
		// writer and the reader hit.
		sig = f.signature(f.writes)
		old, have := e.wrecs.Lookup(key, sig)
		outcome = replay.Decide(true, have)
		f.wrec = writerRec{}
		if have {
			f.wrec = maps.Clone(old)
		}
	}
	hit := outcome == replay.Hit
	M := f.part.Matchers()
	per := make([][]matcher.Write, M)
	for _, p := range f.writes {
		if hit {
			break // the matchers hold these writes from the recorded epoch
		}
		for _, pc := range f.part.Split(p.varid, p.box) {
			per[pc.Matcher] = append(per[pc.Matcher], matcher.Write{Rank: f.me, Var: p.varid, Seq: p.id, Box: pc.Box})
		}
	}
	// A replaying writer pushes nothing to readers it knows closed the
	// session (see pushRecord), and says which: a matcher may hear of a
	// reader's close before this writer did, and must not have that reader
	// drain pushes that never come.
	var unpushed []int
	if hit {
		unpushed = slices.Sorted(maps.Keys(f.gone))
	}
	for m := 0; m < M; m++ {
		msg := &envelope{Kind: kWriteReqs, Path: f.path, Session: f.session, Epoch: f.epoch, FileID: f.fileID,
			NumRecs: f.hdr.NumRecs, Writes: per[m], Final: closing, Ranks: []int{f.me, len(f.world)},
			Section: f.fc.Index, Replay: hit, Record: f.fc.ReplayIO && !multiple, Sent: start.UnixNano(), Multiple: multiple, Closed: unpushed}
		if err := e.send(f.world[m], msg); err != nil {
			return err
		}
		f.st.MsgsSent++
	}
	if hit {
		if err := f.pushRecord(start); err != nil {
			return err
		}
	}
	done := 0
	var peerErr error
	err := e.waitFor(func() string {
		what := ""
		if multiple {
			what = ", a multiple transfer that each reader ends with dtf_complete_multiple or its close"
		}
		return fmt.Sprintf("readers of %s (epoch %d%s): %d of %d matchers done, %d sends pending", f.path, f.epoch, what, done, M, len(f.dataSends))
	}, func() (bool, error) {
		for {
			m := f.take(kEpochDone, func(m *envelope) bool { return m.Epoch == f.epoch })
			if m == nil {
				break
			}
			f.st.MsgsRecv++
			done++
			for _, r := range m.Closed {
				f.gone[r] = true
			}
			if m.Err != "" && peerErr == nil {
				peerErr = fmt.Errorf("dtf: %s: %s", f.path, m.Err)
			}
		}
		if err := f.retireSends(driveBudget); err != nil {
			return false, err
		}
		return done == M && len(f.dataSends) == 0, nil
	})
	f.st.TransferTime = time.Since(start)
	f.st.Replay = outcomeOf(outcome)
	if err != nil {
		// Sends to readers that are gone may never complete; stop counting
		// them so later waits do not poll for them.
		e.inFlight -= len(f.dataSends)
		f.dataSends = nil
	}
	if err == nil {
		err = peerErr
	}
	if err == nil && f.fc.ReplayIO && !multiple {
		e.wrecs.Put(key, sig, f.wrec)
	}
	f.writes = f.writes[:0]
	clear(f.bySeq)
	f.endEpoch(err)
	return err
}

// pushRecord sends by this writer's record at once, every recorded round,
// and tells each reader of the record that it did: a reader that replays too
// and hears this from every writer needs no word from the matchers. Any
// reader round that does not replay is matched afresh, and the matchers
// have the reader drain what was pushed to it.
func (f *File) pushRecord(start time.Time) error {
	// The verdicts go first: posting the sends is data movement, which the
	// readers wait for as such.
	readers := map[int]bool{}
	for sk := range f.wrec {
		if readers[sk.reader] || f.gone[sk.reader] {
			continue
		}
		readers[sk.reader] = true
		msg := &envelope{Kind: kVerdict, Path: f.path, Session: f.session, Epoch: f.epoch, NumRecs: f.hdr.NumRecs, Sent: start.UnixNano()}
		if err := f.e.send(sk.reader, msg); err != nil {
			return err
		}
		f.st.MsgsSent++
	}
	for sk, sched := range f.wrec {
		if f.gone[sk.reader] {
			continue // it closed the session in an earlier epoch: nothing would drain these
		}
		if err := f.sendSched(sched); err != nil {
			return err
		}
	}
	return nil
}

// onSchedule starts the sends a matcher scheduled, recording them when the
// matcher records the round.
func (f *File) onSchedule(m *envelope) error {
	f.st.MsgsRecv++
	if m.Record && f.wrec != nil {
		f.wrec[schedKey{m.From, m.Peer, m.Round}] = m.Sched
	}
	return f.sendSched(m.Sched)
}

// sendSched starts sends straight from the write buffers with subarray
// datatypes.
func (f *File) sendSched(sched []tagged) error {
	for _, t := range sched {
		p := f.bySeq[t.T.Seq]
		if p == nil {
			return fmt.Errorf("dtf: %s: schedule names write %d, which this rank does not hold", f.path, t.T.Seq)
		}
		esize := f.hdr.Vars[p.varid].Type.Size()
		q, err := f.e.tr.SendBlock(t.Peer, f.e.tags.data(f.fileID, t.ID), p.block(esize, t.T.Box))
		if err != nil {
			return fmt.Errorf("dtf: %s: send %s of %s to rank %d: %w", f.path, t.T.Box, f.hdr.Vars[p.varid].Name, t.Peer, err)
		}
		f.dataSends = append(f.dataSends, q)
		f.e.inFlight++
		f.st.Bytes += t.T.Box.Volume() * int64(esize)
		f.st.MsgsSent++
	}
	return nil
}
