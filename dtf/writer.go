package dtf

import (
	"fmt"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/dtf/protocol"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/transport"
)

// writerSession is what a writer's session holds beyond File: its writes
// of the epoch and the data sends serving them, and the writer role.
type writerSession struct {
	role      *protocol.Writer // the writer role, once the header is defined
	writes    []*piece         // this epoch's writes, in call order
	bySeq     map[int64]*piece // the same, by write Seq
	nextSeq   int64
	iputs     map[int][]*piece // nonblocking put id -> its pieces, until waited
	dataSends []transport.Pending
	copies    copyArena // this epoch's copies of put data
}

func newWriterSession() *writerSession {
	return &writerSession{bySeq: map[int64]*piece{}, iputs: map[int][]*piece{}}
}

// cancel drops a pending nonblocking put and its writes, reporting whether
// id was one.
func (w *writerSession) cancel(id int) bool {
	ps, ok := w.iputs[id]
	if !ok {
		return false
	}
	drop := map[*piece]bool{}
	for _, p := range ps {
		drop[p] = true
		delete(w.bySeq, p.id)
	}
	w.writes = slices.DeleteFunc(w.writes, func(p *piece) bool { return drop[p] })
	delete(w.iputs, id)
	return true
}

// recordWrites turns accesses into write pieces. Data is copied when copyData
// says so or when the layout or type needs packing; otherwise the pieces
// alias the user's buffer until the epoch ends.
func (f *File) recordWrites(reqs []nc.Access, copyData bool) ([]*piece, error) {
	var out []*piece
	var rangeErr error
	for i := range reqs {
		a := &reqs[i]
		vt := f.hdr.Vars[a.Var].Type
		data, err := packWrite(a, vt, copyData, f.w.copies.alloc)
		if nc.Code(err) == nc.ERANGE {
			rangeErr = err
		} else if err != nil {
			return nil, err
		}
		ps := splitStrided(a, data, func() int64 { f.w.nextSeq++; return f.w.nextSeq })
		for _, p := range ps {
			f.w.bySeq[p.id] = p
			if f.hdr.IsRecordVar(a.Var) {
				f.hdr.NumRecs = max(f.hdr.NumRecs, p.box.Start[0]+p.box.Count[0])
			}
		}
		f.w.writes = append(f.w.writes, ps...)
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
	f.w.iputs[f.nextReq] = ps
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
	f.w.iputs[f.nextReq] = nil // already copied: nothing to secure at wait
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
		ps, ok := f.w.iputs[id]
		if !ok {
			st[i] = nc.EINVAL_REQUEST
			continue
		}
		delete(f.w.iputs, id)
		if !f.copyBlocking() {
			continue
		}
		copied := map[*byte][]byte{}
		for _, p := range ps {
			if _, live := f.w.bySeq[p.id]; !live || len(p.data) == 0 {
				continue // sent in an epoch that ended: nothing left to secure
			}
			c, ok := copied[&p.data[0]]
			if !ok {
				c = f.w.copies.alloc(int64(len(p.data)))
				copy(c, p.data)
				copied[&p.data[0]] = c
			}
			p.data = c
		}
	}
	f.bputUsed = 0
	return st
}

// endWriterEpoch drives the writer role (protocol.Writer) through the end
// of an epoch: it ships this rank's writes to the matchers and serves their
// schedules until every matcher reports every reader done with the epoch. A
// multiple epoch (dtf_transfer_multiple) serves every reader transfer until
// each reader is done with it (CompleteMultiple or close); it neither records
// nor replays.
func (f *File) endWriterEpoch(closing, multiple bool) error {
	e := f.e
	start := time.Now()
	w := f.writerRole()
	ps := make([]protocol.Piece, len(f.w.writes))
	for i, p := range f.w.writes {
		ps[i] = protocol.Piece{Var: p.varid, Type: int(f.hdr.Vars[p.varid].Type), ID: p.id, Box: p.box}
	}
	if err := f.doWriter(w.EndEpoch(ps, f.hdr.NumRecs, closing, multiple, start.UnixNano())); err != nil {
		return err
	}
	err := e.waitFor(func() string {
		return fmt.Sprintf("%s, %d sends pending", w.Waiting(), len(f.w.dataSends))
	}, func() (bool, error) {
		for {
			m := f.e.take(w.Accepts)
			if m == nil {
				break
			}
			if err := f.onWriterMsg(m); err != nil {
				return false, err
			}
		}
		if err := f.retireSends(driveBudget); err != nil {
			return false, err
		}
		return w.MatchersDone() && len(f.w.dataSends) == 0, nil
	})
	f.st.TransferTime = time.Since(start)
	f.st.Replay = outcomeOf(w.Outcome())
	if err != nil {
		// Sends to readers that are gone may never complete; stop counting
		// them so later waits do not poll for them.
		e.inFlight -= len(f.w.dataSends)
		f.w.dataSends = nil
		f.w.copies.abandon()
	}
	err = w.Finish(err)
	f.w.writes = f.w.writes[:0]
	clear(f.w.bySeq)
	f.w.copies.release() // every send of the epoch completed
	if closing {
		f.w.copies.close()
	}
	f.endEpoch(err)
	return err
}

// onSchedule starts the sends a matcher scheduled.
func (f *File) onSchedule(m *envelope) error { return f.onWriterMsg(m) }

// onWriterMsg hands a matcher's SCHEDULE or EPOCH_DONE to the writer role
// and starts what it asks for.
func (f *File) onWriterMsg(m *envelope) error {
	f.st.MsgsRecv++
	r, err := f.writerRole().Step(m)
	if err != nil {
		return err
	}
	return f.doWriter(r)
}

// writerRole returns the session's writer role, made once the matcher
// partition is known.
func (f *File) writerRole() *protocol.Writer {
	if f.w.role == nil {
		f.w.role = protocol.NewWriter(f.protoSession(), f.e.recs)
	}
	return f.w.role
}

// doWriter sends what the writer role asks for: control messages, and the
// scheduled transfers straight from the write buffers.
func (f *File) doWriter(r protocol.WriterReady) error {
	for _, s := range r.Sends {
		if err := f.e.send(s.To, s.Msg); err != nil {
			return err
		}
		f.st.MsgsSent++
	}
	return f.sendSched(r.Data)
}

// sendSched starts sends straight from the write buffers with subarray
// datatypes.
func (f *File) sendSched(sched []tagged) error {
	for _, t := range sched {
		p := f.w.bySeq[t.T.Seq]
		if p == nil {
			return fmt.Errorf("dtf: %s: schedule names write %d, which this rank does not hold", f.path, t.T.Seq)
		}
		esize := f.hdr.Vars[p.varid].Type.Size()
		q, err := f.e.tr.SendBlock(t.Peer, f.e.tags.data(f.fileID, t.ID), p.block(esize, t.T.Box))
		if err != nil {
			return fmt.Errorf("dtf: %s: send %s of %s to rank %d: %w", f.path, t.T.Box, f.hdr.Vars[p.varid].Name, t.Peer, err)
		}
		f.w.dataSends = append(f.w.dataSends, q)
		f.e.inFlight++
		f.st.Bytes += t.T.Box.Volume() * int64(esize)
		f.st.MsgsSent++
	}
	return nil
}
