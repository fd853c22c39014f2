package ucxtransport

import (
	"fmt"
	"slices"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/ucx"
)

// inMsg is a control message taken from UCX (or sent to self), possibly
// still arriving.
type inMsg struct {
	src  int
	data []byte
	req  *ucx.Request // nil once the data is all there
}

// maxDrain bounds the progress rounds of one call.
const maxDrain = 64

// progress drives the worker while it has events, up to maxDrain rounds:
// one round moves only a few fragments of a large message.
func (t *Transport) progress() {
	for i := 0; i < maxDrain && t.w.Progress() > 0; i++ {
	}
}

// Send starts sending data to rank to with tag. A message to this rank is
// copied and queued at once.
func (t *Transport) Send(to, tag int, data []byte) (transport.Pending, error) {
	if err := t.checkPeer(to, tag); err != nil {
		return nil, err
	}
	if to == t.rank {
		t.inbox[tag] = append(t.inbox[tag], &inMsg{src: to, data: append([]byte{}, data...)})
		return donePending{t: t}, nil
	}
	ep, err := t.endpoint(to)
	if err != nil {
		return nil, err
	}
	r, err := ep.SendTag(data, ucxTag(false, t.rank, tag))
	if err != nil {
		return nil, fmt.Errorf("ucxtransport: send %d bytes to %s tag %d: %w", len(data), t.describe(to), tag, err)
	}
	return &sendPending{t: t, what: fmt.Sprintf("send to %s tag %d", t.describe(to), tag), reqs: []*ucx.Request{r}}, nil
}

// TryRecv progresses the worker, starts receiving every control message
// with tag that has arrived (sized by a tag probe), and returns the oldest
// complete one whose source has no older message still arriving.
func (t *Transport) TryRecv(tag int) (transport.Message, bool, error) {
	if err := checkTag(tag); err != nil {
		return transport.Message{}, false, err
	}
	if t.closed {
		return transport.Message{}, false, fmt.Errorf("ucxtransport: transport closed")
	}
	t.progress()
	if err := t.probe(tag); err != nil {
		return transport.Message{}, false, err
	}
	q := t.inbox[tag]
	var busy []int // sources with an older message still arriving
	for i, m := range q {
		if m.req != nil && !m.req.Done() {
			busy = append(busy, m.src)
			continue
		}
		if slices.Contains(busy, m.src) {
			continue
		}
		t.inbox[tag] = append(q[:i:i], q[i+1:]...)
		if len(t.inbox[tag]) == 0 {
			delete(t.inbox, tag)
		}
		msg := transport.Message{Source: m.src, Tag: tag, Data: m.data}
		if m.req != nil {
			if err := m.req.Err(); err != nil {
				return msg, false, fmt.Errorf("ucxtransport: receive from %s tag %d: %w", t.describe(m.src), tag, err)
			}
			if n, _ := m.req.Info(); n != len(m.data) {
				return msg, false, fmt.Errorf("ucxtransport: message from %s tag %d has %d bytes, probe said %d", t.describe(m.src), tag, n, len(m.data))
			}
		}
		return msg, true, nil
	}
	return transport.Message{}, false, nil
}

// probe moves every arrived control message with tag from UCX's queue
// into the inbox, starting its receive.
func (t *Transport) probe(tag int) error {
	for {
		p, err := t.w.Probe(ucxTag(false, 0, tag), ctrlProbe)
		if err != nil || p == nil {
			return err
		}
		m := &inMsg{src: tagSource(p.Tag), data: make([]byte, p.Length)}
		if m.req, err = p.Recv(m.data); err != nil {
			return fmt.Errorf("ucxtransport: receive %d bytes from rank %d tag %d: %w", p.Length, m.src, tag, err)
		}
		t.inbox[tag] = append(t.inbox[tag], m)
	}
}
