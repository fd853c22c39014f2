package dtf

import (
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/dtf/protocol"
	"github.com/couplet-hpc/couplet/transport"
)

// pendingSend is a control message in flight; buf stays referenced until done.
// A best-effort message may fail (its receiver may have exited) without
// failing anything else.
type pendingSend struct {
	req  transport.Pending
	buf  []byte
	best bool
}

// send starts a control message to a rank. Sends never block, so two ranks
// sending large request lists to each other cannot deadlock.
func (e *engine) send(to int, m *envelope) error { return e.start(to, m, false) }

// sendAdvisory starts a message whose loss harms nothing, such as telling
// ranks to drop a header they never took: under separate launches its
// receiver may already have exited.
func (e *engine) sendAdvisory(to int, m *envelope) { e.start(to, m, true) }

// heldMsg is a control message held for the end of a poll (see receive).
type heldMsg struct {
	to   int
	m    *envelope
	best bool
	at   time.Time // when it was sent, for the trace
}

// start sends m to rank to at once, or holds it: inside a poll (receive),
// and when it is for this rank itself, which the next poll hands to its
// roles without the transport.
func (e *engine) start(to int, m *envelope, best bool) error {
	h := heldMsg{to, m, best, e.stamp()}
	if e.holding || to == e.tr.Rank() {
		e.held = append(e.held, h)
		return nil
	}
	return e.sendFrame(to, []heldMsg{h})
}

// frameOf encodes msgs back to back as one frame (protocol.DecodeFrame).
func frameOf(msgs []heldMsg) ([]byte, error) {
	var b []byte
	for _, h := range msgs {
		var err error
		if b, err = h.m.AppendTo(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// sendFrame sends msgs, all for one peer, as one transport message.
func (e *engine) sendFrame(to int, msgs []heldMsg) error {
	b, err := frameOf(msgs)
	if err != nil {
		return err
	}
	best := true
	for _, h := range msgs {
		best = best && h.best
	}
	q, err := e.tr.Send(to, tagCtl, b)
	if err != nil {
		if best {
			return nil
		}
		first := msgs[0].m
		more := ""
		if len(msgs) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(msgs)-1)
		}
		return fmt.Errorf("dtf: send %s for %s%s to rank %d: %w", first.Kind, first.Path, more, to, err)
	}
	for _, h := range msgs {
		e.traceMsg(h.at, true, to, h.m)
	}
	e.sends = append(e.sends, &pendingSend{q, b, best})
	return nil
}

// sendHeld sends the held messages for other ranks, one frame per rank, in
// the order of each rank's first message, and keeps those for this rank.
func (e *engine) sendHeld() error {
	if len(e.held) == 0 {
		return nil
	}
	me := e.tr.Rank()
	var first error
	var peers []int
	by := map[int][]heldMsg{}
	own := e.held[:0]
	for _, h := range e.held {
		if h.to == me {
			own = append(own, h)
			continue
		}
		if by[h.to] == nil {
			peers = append(peers, h.to)
		}
		by[h.to] = append(by[h.to], h)
	}
	clear(e.held[len(own):])
	e.held = own
	for _, to := range peers {
		if err := e.sendFrame(to, by[to]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// takeOwn removes the held messages, which between polls are all for this
// rank (a message for a peer is held only inside a poll, which sends it),
// and returns them as a peer would receive them, encoded and decoded: the
// roles share no memory through a message.
func (e *engine) takeOwn() ([]*envelope, error) {
	if len(e.held) == 0 {
		return nil, nil
	}
	b, err := frameOf(e.held)
	if err != nil {
		return nil, err
	}
	for _, h := range e.held {
		e.traceMsg(h.at, true, h.to, h.m)
	}
	clear(e.held)
	e.held = e.held[:0]
	return protocol.DecodeFrame(b)
}

// receive hands every waiting control message to dispatch: this rank's
// own first, then each frame the transport holds. What the handlers send
// meanwhile is held and goes out when none is left, one frame per peer: a
// matcher that finds both readers' requests waiting sends each writer its
// schedules for both, and the epoch's end, in one message, and the writer
// starts all its sends at once. Messages to this rank itself go round
// again (a matcher's schedule for the writer on its own rank starts that
// writer's sends in the same poll). It reports how many messages it
// handled.
func (e *engine) receive() (int, error) {
	e.holding = true
	defer func() { e.holding = false }()
	n := 0
	for {
		err := e.receiveWaiting(&n)
		if serr := e.sendHeld(); err == nil {
			err = serr
		}
		if err != nil || len(e.held) == 0 {
			return n, err
		}
	}
}

// receiveWaiting dispatches this rank's own held messages and the
// transport's waiting frames, counting them in n.
func (e *engine) receiveWaiting(n *int) error {
	own, err := e.takeOwn()
	if err != nil {
		return err
	}
	if len(own) > 0 {
		if err := e.handleAll(e.tr.Rank(), own, n); err != nil {
			return err
		}
	}
	for {
		msg, ok, err := e.tr.TryRecv(tagCtl)
		if err != nil || !ok {
			return err
		}
		ms, err := protocol.DecodeFrame(msg.Data)
		if err != nil {
			return fmt.Errorf("%w (from rank %d)", err, msg.Source)
		}
		if err := e.handleAll(msg.Source, ms, n); err != nil {
			return err
		}
	}
}

// handleAll dispatches the messages ms of one frame from rank from,
// counting them in n. A failed message fails the poll, but the frame's
// others are still handled: they may be for other files.
func (e *engine) handleAll(from int, ms []*envelope, n *int) error {
	var first error
	for _, m := range ms {
		*n++
		m.From = from
		e.traceMsg(e.stamp(), false, from, m)
		if err := e.dispatch(m); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// poll receives every waiting control message (receive), retires finished
// sends and drives the files' data sends. It never blocks and reports how
// many messages it handled. A quick poll that handled some returns at
// once, without retiring or driving: an idle MPI test yields the CPU on a
// crowded node (see waitFor), and a waiter should see the messages it got
// before that.
func (e *engine) poll(quick bool) (int, error) {
	e.polled = time.Now()
	n, err := e.receive()
	if err != nil || (quick && n > 0) {
		return n, err
	}
	live := e.sends[:0]
	for _, s := range e.sends {
		done, err := s.req.Test()
		switch {
		case err != nil && !s.best:
			return n, err
		case err == nil && !done:
			live = append(live, s)
		}
	}
	clear(e.sends[len(live):])
	e.sends = live
	for _, f := range e.files {
		if err := f.progress(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// dispatch routes one received control message.
func (e *engine) dispatch(m *envelope) error {
	switch m.Kind {
	case kWriteReqs, kReadReqs, kRecsQuery, kDoneMulti:
		return e.onMatcherMsg(m)
	case kForget:
		// A rank still in that session keeps its mail: it may hold the
		// replies to its closing round, which can arrive in the same poll
		// as this. Its own close clears the rest.
		if f := e.files[m.Path]; f != nil && f.session == m.Session {
			return nil
		}
		e.dropMail(m.Path, func(s int) bool { return s == m.Session })
		return nil
	case kSchedule:
		f := e.files[m.Path]
		if f == nil || f.session != m.Session || f.role != roleWriter {
			return fmt.Errorf("dtf: schedule for %s session %d, which this rank is not writing", m.Path, m.Session)
		}
		return f.onSchedule(m)
	}
	e.mail = append(e.mail, m)
	return nil
}

// take removes and returns the first parked message that pred accepts.
func (e *engine) take(pred func(*envelope) bool) *envelope {
	for i, m := range e.mail {
		if pred(m) {
			e.mail = append(e.mail[:i], e.mail[i+1:]...)
			return m
		}
	}
	return nil
}

// waitSends completes every control send in flight.
func (e *engine) waitSends() error {
	return e.waitFor(func() string {
		return fmt.Sprintf("%d control messages to be delivered", len(e.sends))
	}, func() (bool, error) { return len(e.sends) == 0, nil })
}
