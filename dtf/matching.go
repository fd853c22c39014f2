package dtf

import (
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/matcher"
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
	final       map[int]bool
	matchTime   time.Duration
}

func (mf *mfile) epoch(n int) *mepoch {
	ep := mf.epochs[n]
	if ep == nil {
		ep = &mepoch{final: map[int]bool{}}
		mf.epochs[n] = ep
	}
	return ep
}

// onMatcherMsg handles writers' and readers' requests at a matcher.
func (e *engine) onMatcherMsg(m *envelope) error {
	mf := e.match[m.key()]
	if mf == nil {
		mf = &mfile{key: m.key(), epochs: map[int]*mepoch{}, closed: map[int]bool{}}
		e.match[m.key()] = mf
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
		ep.closing = ep.closing || m.Final
		if ep.fromWriters == mf.nWriters {
			for _, q := range ep.queued {
				if err := e.serveRound(mf, ep, q); err != nil {
					return err
				}
			}
			ep.queued = nil
		}
	case kRecsQuery:
		if mf.writers != nil && ep.fromWriters == mf.nWriters {
			return e.serveRound(mf, ep, m)
		}
		ep.queued = append(ep.queued, m)
	case kReadReqs:
		mf.nReaders = size
		if m.Closing {
			mf.closed[rank] = true
		}
		if m.Final || m.Closing {
			ep.final[rank] = true
		}
		if len(m.Reads) > 0 || !m.Closing {
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

// serveRound matches one reader's round against the epoch's writes and sends
// the schedule to the writers and the expectations to the reader.
func (e *engine) serveRound(mf *mfile, ep *mepoch, m *envelope) error {
	if m.Kind == kRecsQuery {
		return e.send(m.From, &envelope{Kind: kRecs, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, NumRecs: ep.numRecs})
	}
	start := time.Now()
	s, err := matcher.Match(ep.writes, m.Reads)
	ep.matchTime += time.Since(start)
	reply := &envelope{Kind: kExpect, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, Round: m.Round, NumRecs: ep.numRecs}
	if err != nil {
		reply.Err = err.Error()
		return e.send(m.From, reply)
	}
	byWriter := map[int][]tagged{}
	for _, t := range s.Transfers {
		tag := dataTag(mf.fileID, mf.nextID)
		mf.nextID++
		byWriter[t.Writer] = append(byWriter[t.Writer], tagged{T: t, Tag: tag, Peer: m.From})
		reply.Sched = append(reply.Sched, tagged{T: t, Tag: tag, Peer: mf.writers[t.Writer]})
	}
	reply.Missing = s.Uncovered
	for w, ts := range byWriter {
		if err := e.send(mf.writers[w], &envelope{Kind: kSchedule, Path: mf.key.Path, Session: mf.key.Session, Epoch: m.Epoch, Sched: ts}); err != nil {
			return err
		}
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
			if !ep.final[r] && !mf.closed[r] {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		for _, w := range mf.writers {
			if err := e.send(w, &envelope{Kind: kEpochDone, Path: mf.key.Path, Session: mf.key.Session, Epoch: n}); err != nil {
				return err
			}
		}
		delete(mf.epochs, n)
		if ep.closing {
			delete(e.match, mf.key)
		}
	}
	return nil
}
