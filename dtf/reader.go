package dtf

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/dtf/protocol"
	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/replay"
	"github.com/couplet-hpc/couplet/transport"
)

// readerSession is what a reader's session holds beyond File: its pending
// gets, the pieces of the round in progress, and the reader role.
type readerSession struct {
	role      *protocol.Reader // the reader role, once the header arrived
	recsEpoch int              // epoch+1 whose record count is known; 0 = none
	igets     map[int]*readReq // nonblocking get id -> request, until waited
	served    map[int]struct{} // get ids completed by Transfer, until waited
	byID      map[int64]*piece // the round's pieces, by read ID
	nextID    int64
}

func newReaderSession() *readerSession {
	return &readerSession{igets: map[int]*readReq{}, served: map[int]struct{}{}, byID: map[int64]*piece{}}
}

// cancel drops a pending nonblocking get, reporting whether id was one.
func (r *readerSession) cancel(id int) bool {
	_, ok := r.igets[id]
	delete(r.igets, id)
	return ok
}

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
		r.pieces = append(r.pieces, splitStrided(a, data, func() int64 { f.r.nextID++; return f.r.nextID })...)
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
	f.r.igets[f.nextReq] = f.newReadReq(reqs)
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
		r, ok := f.r.igets[id]
		if !ok {
			if _, served := f.r.served[id]; served {
				delete(f.r.served, id) // completed by Transfer: waiting on it is a no-op, as in DTF
			} else {
				st[i] = nc.EINVAL_REQUEST
			}
			continue
		}
		delete(f.r.igets, id)
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
		if !(f.w != nil && f.w.cancel(id) || f.r != nil && f.r.cancel(id)) {
			st[i] = nc.EINVAL_REQUEST
		}
	}
	return st, nil
}

// pendingGets takes every queued nonblocking get; their ids stay valid for a
// later Wait, which then has nothing left to do.
func (f *File) pendingGets() []*readReq {
	var out []*readReq
	for id, r := range f.r.igets {
		out = append(out, r)
		delete(f.r.igets, id)
		f.r.served[id] = struct{}{}
	}
	return out
}

// posted is a receive the engine posted for the reader role, by the role's
// Post.ID; counted receives are data in flight (e.inFlight).
type posted struct {
	q       transport.Pending
	t       tagged
	counted bool
}

// readRound drives the reader role (protocol.Reader) through one round: it
// sends the reads of reqs to the matchers, posts the receives the role asks
// for as each matcher's schedule arrives, receives the boxes straight into
// the buffers, and then converts or fills. final ends the reader's epoch;
// closing ends its session. Replay, and the order in which recorded, stale
// and fresh receives are posted, are the role's.
func (f *File) readRound(reqs []*readReq, final, closing, collective bool) error {
	e := f.e
	start := time.Now()
	rr := f.readerRole()
	var ps []protocol.Piece
	for _, r := range reqs {
		for _, p := range r.pieces {
			f.r.byID[p.id] = p
			ps = append(ps, protocol.Piece{Var: p.varid, Type: int(f.hdr.Vars[p.varid].Type), ID: p.id, Box: p.box})
		}
	}
	f.st.Requests += int64(len(ps))
	defer clear(f.r.byID)
	posts := map[int]*posted{}
	defer f.cancelPosts(posts) // what an error left behind
	// Posting receives is data movement, as in any MPI exchange: its time
	// goes to the transfer time, not to the wait for schedules.
	var posting time.Duration
	earlyFrom, earlyTo := start, start
	do := func(rd protocol.ReaderReady) error {
		for _, s := range rd.Sends {
			if err := e.send(s.To, s.Msg); err != nil {
				return err
			}
			f.st.MsgsSent++
		}
		if rd.Pushed {
			f.st.Pushed++
		}
		t := time.Now()
		defer func() { posting += time.Since(t) }()
		return f.doPosts(rd, posts)
	}
	first := rr.StartRound(ps, final, closing, collective, start.UnixNano())
	earlyFrom = time.Now()
	err := do(first)
	if len(first.Posts) > 0 && first.Posts[0].Early {
		earlyTo = time.Now()
	} else {
		earlyFrom = start
	}
	if err == nil {
		err = e.waitFor(rr.Waiting, func() (bool, error) {
			for {
				m := e.take(rr.Accepts)
				if m == nil {
					break
				}
				f.st.MsgsRecv++
				rd, err := rr.Step(m)
				if err := do(rd); err != nil {
					return false, err
				}
				if err != nil {
					return false, err
				}
			}
			if ids := rr.Stale(); len(ids) > 0 {
				done, err := transport.Drive(e.tr, pendingOf(posts, ids), 0, tagCtl)
				if err != nil || !done {
					return false, err
				}
				f.retirePosts(posts, ids)
				if err := do(rr.StaleDone()); err != nil {
					return false, err
				}
			}
			if rr.Answered() || len(posts) == 0 {
				return rr.Answered(), nil
			}
			// Receives already posted (a replay's, by the record, or those
			// of matchers that answered) move while the other answers are
			// awaited: the writers send as soon as they end the epoch, and
			// MPI moves a large message only while the receiver is inside
			// MPI. Between polls the wait would sleep instead: a replayed
			// round of case 1 of couplet bench at 64 MiB took 1.5-3% longer.
			_, err := transport.Drive(e.tr, pendingOf(posts, slices.Collect(maps.Keys(posts))), driveBudget, tagCtl)
			return false, err
		})
	}
	// Every matcher reports the same writers' epoch end, as the latest it
	// saw; the wait is never more than the round itself took. Early posting
	// done while the writers were not there yet was part of that wait.
	elapsed := time.Since(start)
	waited := min(max(0, time.Duration(rr.WritersAt()-start.UnixNano())), elapsed)
	overlap := max(0, min(earlyTo.Sub(start), waited)-earlyFrom.Sub(start))
	// The reader does no matching: its wait for the schedules splits into
	// the wait for the writers and the rest (the matchers' round trip).
	wait := waited - overlap
	f.st.WaitTime += wait
	f.st.SchedTime += max(0, elapsed-posting-wait)
	f.hdr.NumRecs = max(f.hdr.NumRecs, rr.NumRecs())
	xfer := time.Now().Add(-posting)
	if err == nil {
		ids := rr.Receives()
		recvs := pendingOf(posts, ids)
		err = e.waitFor(rr.Waiting, func() (bool, error) { return transport.Drive(e.tr, recvs, driveBudget, tagCtl) })
		if err == nil {
			f.retirePosts(posts, ids)
		}
	}
	f.st.TransferTime += time.Since(xfer)
	if err != nil {
		rr.Abort()
		return err
	}
	errs := []error{rr.Errs(), f.handleMissing(rr.Missing())}
	for _, r := range reqs {
		for _, fin := range r.finish {
			errs = append(errs, fin())
		}
	}
	err = errors.Join(errs...)
	out, ended := rr.EndRound(err)
	if out != replay.Off && f.st.Replay != stats.Miss {
		f.st.Replay = outcomeOf(out)
	}
	if ended {
		f.endEpoch(err)
	}
	return err
}

// readerRole returns the session's reader role, made once the header (and
// so the writers and the matcher partition) is known.
func (f *File) readerRole() *protocol.Reader {
	if f.r.role == nil {
		f.r.role = protocol.NewReader(f.protoSession(), f.e.recs)
	}
	return f.r.role
}

// doPosts carries out the reader role's receive actions: cancels, early
// receives now expected or kept, and new receives straight into the
// pieces' buffers (drains into scratch).
func (f *File) doPosts(rd protocol.ReaderReady, posts map[int]*posted) error {
	e := f.e
	for _, id := range rd.Cancel {
		if p := posts[id]; p != nil {
			p.q.Cancel()
			if p.counted {
				e.inFlight--
			}
			delete(posts, id)
		}
	}
	for _, p := range rd.Posts {
		var blk transport.Block
		if p.Drain {
			blk = f.scratch(p.T)
			f.st.Drained++
		} else {
			pc := f.r.byID[p.T.T.ReadID]
			if pc == nil {
				return fmt.Errorf("dtf: %s: schedule names read %d, which this rank did not ask for", f.path, p.T.T.ReadID)
			}
			blk = pc.block(f.hdr.Vars[pc.varid].Type.Size(), p.T.T.Box)
		}
		q, err := e.tr.RecvBlock(p.T.Peer, e.tags.data(f.fileID, p.T.ID), blk)
		if err != nil {
			return err
		}
		posts[p.ID] = &posted{q: q, t: p.T, counted: !p.Early}
		if !p.Early {
			e.inFlight++
			if !p.Drain {
				f.countTagged(p.T)
			}
		}
	}
	// After the new posts: a round may confirm at once the early receives
	// it posts (the writers' verdicts of this epoch came in an earlier round).
	for _, id := range rd.Keep {
		posts[id].counted = true
		e.inFlight++
	}
	for _, id := range rd.Confirm {
		posts[id].counted = true
		e.inFlight++
		f.countTagged(posts[id].t)
	}
	return nil
}

// countTagged counts one expected box (a confirmed early receive or a new
// scheduled one): its bytes and its message.
func (f *File) countTagged(t tagged) {
	f.st.Bytes += t.T.Box.Volume() * int64(f.hdr.Vars[t.T.Var].Type.Size())
	f.st.MsgsRecv++
}

// scratch is a buffer for a transfer pushed to this rank that it no longer
// wants (see protocol.Writer's pushes), so the writer's send completes.
func (f *File) scratch(t tagged) transport.Block {
	n := t.T.Box.Count
	es := f.hdr.Vars[t.T.Var].Type.Size()
	return transport.Block{Buf: make([]byte, t.T.Box.Volume()*int64(es)), ElemSize: es, Shape: n, Start: make([]int64, len(n)), Count: n}
}

// pendingOf returns the posted receives named by ids.
func pendingOf(posts map[int]*posted, ids []int) []transport.Pending {
	out := make([]transport.Pending, len(ids))
	for i, id := range ids {
		out[i] = posts[id].q
	}
	return out
}

// retirePosts forgets completed receives.
func (f *File) retirePosts(posts map[int]*posted, ids []int) {
	for _, id := range ids {
		if posts[id].counted {
			f.e.inFlight--
		}
		delete(posts, id)
	}
}

// cancelPosts cancels receives that will not be waited for, so nothing
// writes into the buffers after the call returned (cancelling one that
// completed is a no-op).
func (f *File) cancelPosts(posts map[int]*posted) {
	for id, p := range posts {
		p.q.Cancel()
		if p.counted {
			f.e.inFlight--
		}
		delete(posts, id)
	}
}

// handleMissing reports never-written parts of reads as an error naming the
// variable and box, or fills them when the variable is in fill mode (as
// PnetCDF fills it) or the config says unwritten=fill.
func (f *File) handleMissing(missing []matcher.Uncovered) error {
	var errs []error
	for _, u := range missing {
		p := f.r.byID[u.ReadID]
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
