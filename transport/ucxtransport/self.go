package ucxtransport

import (
	"fmt"

	"github.com/couplet-hpc/couplet/transport"
)

// selfBlocks matches blocks a rank sends to itself, by tag and in order,
// without UCX.
type selfBlocks struct {
	sent  map[int][][]byte    // packed blocks nobody receives yet
	recvs map[int][]*selfRecv // receives waiting for a block
}

func (s *selfBlocks) init() {
	s.sent = map[int][][]byte{}
	s.recvs = map[int][]*selfRecv{}
}

// send packs b and hands it to the oldest waiting receive, or queues it.
func (s *selfBlocks) send(tag int, b transport.Block) error {
	data := make([]byte, b.Bytes())
	if err := transport.Pack(b, data); err != nil {
		return err
	}
	if q := s.recvs[tag]; len(q) > 0 {
		s.recvs[tag] = q[1:]
		q[0].deliver(data)
		return nil
	}
	s.sent[tag] = append(s.sent[tag], data)
	return nil
}

// recv takes the oldest queued block with tag or waits for one.
func (s *selfBlocks) recv(t *Transport, tag int, b transport.Block) *selfRecv {
	r := &selfRecv{t: t, s: s, tag: tag, b: b}
	if q := s.sent[tag]; len(q) > 0 {
		s.sent[tag] = q[1:]
		r.deliver(q[0])
		return r
	}
	s.recvs[tag] = append(s.recvs[tag], r)
	return r
}

// selfRecv is a receive of a block this rank sends itself.
type selfRecv struct {
	t    *Transport
	s    *selfBlocks
	tag  int
	b    transport.Block
	done bool
	err  error
}

func (r *selfRecv) deliver(data []byte) {
	r.done = true
	if int64(len(data)) != r.b.Bytes() {
		r.err = fmt.Errorf("ucxtransport: block to self tag %d has %d bytes, want %d (the blocks differ in size)", r.tag, len(data), r.b.Bytes())
		return
	}
	r.err = transport.Unpack(r.b, data)
}

// Test reports whether the block has arrived; it also progresses UCX.
func (r *selfRecv) Test() (bool, error) {
	r.t.progress()
	return r.done, r.err
}

// Cancel withdraws a receive still waiting.
func (r *selfRecv) Cancel() error {
	if r.done {
		return nil
	}
	q := r.s.recvs[r.tag]
	for i, x := range q {
		if x == r {
			r.s.recvs[r.tag] = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	r.done, r.err = true, ErrCanceled
	return nil
}
