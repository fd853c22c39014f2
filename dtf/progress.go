package dtf

import (
	"fmt"
	"time"

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

func (e *engine) start(to int, m *envelope, best bool) error {
	b, err := m.Encode()
	if err != nil {
		return err
	}
	at := e.stamp()
	q, err := e.tr.Send(to, tagCtl, b)
	if err != nil {
		if best {
			return nil
		}
		return fmt.Errorf("dtf: send %s for %s to rank %d: %w", m.Kind, m.Path, to, err)
	}
	e.traceMsg(at, true, to, m)
	e.sends = append(e.sends, &pendingSend{q, b, best})
	return nil
}

// poll receives every waiting control message, hands matcher and schedule
// messages to their handlers, parks the rest in the mailbox, and retires
// finished sends. It never blocks and reports how many messages it handled.
func (e *engine) poll() (int, error) { return e.pollUpTo(-1) }

// pollUpTo is poll handling at most max messages (all waiting if max < 0).
// Having handled max, it returns at once without looking further or
// retiring sends: an idle MPI test yields the CPU on a crowded node (see
// waitFor), and a waiter should see the message it got before that.
func (e *engine) pollUpTo(max int) (int, error) {
	e.polled = time.Now()
	n := 0
	for n != max {
		msg, ok, err := e.tr.TryRecv(tagCtl)
		if err != nil {
			return n, err
		}
		if !ok {
			break
		}
		n++
		m, err := decodeEnvelope(msg.Data)
		if err != nil {
			return n, fmt.Errorf("%w (from rank %d)", err, msg.Source)
		}
		m.From = msg.Source
		e.traceMsg(e.stamp(), false, m.From, m)
		if err := e.dispatch(m); err != nil {
			return n, err
		}
	}
	if n == max {
		return n, nil
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
