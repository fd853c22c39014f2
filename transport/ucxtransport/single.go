package ucxtransport

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/ucx"
)

// SingleCopyReads is the number of blocks this rank received by single-copy
// reads (Options.SingleCopy).
func (t *Transport) SingleCopyReads() int64 { return t.reads }

// SingleCopyRefused is the number of blocks this rank received through UCX
// because the kernel refused it the single-copy read (a peer that is not
// dumpable, or a ptrace policy such as Yama's that forbids the access).
func (t *Transport) SingleCopyRefused() int64 { return t.refused }

// answerBytes is the length of an answer to a descriptor: one word.
const answerBytes = 8

// singleSend offers a block to a receiver that reads it: its descriptor
// goes out in place of the block's messages, and the receiver's answer
// comes back with the answer tag. When the kernel refused the receiver its
// read, the block's messages follow through UCX with refusedTag.
type singleSend struct {
	t          *Transport
	ep         *ucx.Endpoint
	key        recvKey // the receiver and the tag
	what       string
	b          transport.Block // kept until the receiver is done with the buffer
	desc, ans  []byte
	dreq, areq *ucx.Request
	// before is an earlier offer to the same receiver with the same tag
	// until it settled how its block moves: blocks that move through UCX
	// after a refusal go in the order they were offered, as the receiver
	// posts their receives.
	before *singleSend
	fb     *sendPending // the block's messages after a refusal
	done   bool
	err    error
}

// sendSingle starts offering b to rank to over ep.
func (t *Transport) sendSingle(ep *ucx.Endpoint, to, tag int, b transport.Block, what string) (transport.Pending, error) {
	key := recvKey{from: to, tag: tag}
	p := &singleSend{t: t, ep: ep, key: key, what: what, b: b, desc: wordBytes(cma.Describe(b).Encode()), ans: make([]byte, answerBytes)}
	var err error
	if p.areq, err = t.w.RecvTag(p.ans, answerTag(to, tag), exactMatch); err != nil {
		return nil, fmt.Errorf("ucxtransport: %s: %w", what, err)
	}
	if p.dreq, err = ep.SendTag(p.desc, ucxTag(true, t.rank, tag)); err != nil {
		return nil, errors.Join(fmt.Errorf("ucxtransport: %s: %w", what, err), p.areq.Cancel(cancelTimeout))
	}
	if prev := t.offers[key]; prev != nil && !prev.settled() {
		p.before = prev
	}
	t.offers[key] = p
	return p, nil
}

// settled reports whether the send knows how its block moves: read by
// the receiver (or failed), or sent through UCX after a refusal.
func (p *singleSend) settled() bool { return p.done || p.fb != nil }

// Test progresses the worker and reports whether the receiver answered and,
// after a refusal, the block's messages went, so that the buffer may be
// reused.
func (p *singleSend) Test() (bool, error) {
	if p.done {
		return true, p.err
	}
	if p.fb == nil {
		p.t.progress()
		if !p.dreq.Done() || !p.areq.Done() {
			return false, nil
		}
		refused, err := p.outcome()
		if err != nil || !refused {
			return true, p.finish(err)
		}
		if p.before != nil && !p.before.settled() {
			return false, nil
		}
		p.before = nil
		if p.fb, err = p.t.sendBytes(p.ep, p.b, refusedTag(p.t.rank, p.key.tag), p.what); err != nil {
			return true, p.finish(err)
		}
		p.unlink()
	}
	done, err := p.fb.Test()
	if done {
		p.finish(err)
	}
	return done, err
}

// outcome reads the receiver's answer: whether the kernel refused it the
// read, or what went wrong.
func (p *singleSend) outcome() (refused bool, err error) {
	for _, r := range []*ucx.Request{p.dreq, p.areq} {
		if err := r.Err(); err != nil {
			return false, fmt.Errorf("ucxtransport: %s: %w", p.what, err)
		}
	}
	if n, _ := p.areq.Info(); n != answerBytes {
		return false, fmt.Errorf("ucxtransport: %s: an answer of %d bytes", p.what, n)
	}
	switch code := binary.LittleEndian.Uint64(p.ans); code {
	case cma.AnswerRead, cma.AnswerDeclined:
		return false, nil
	case cma.AnswerRefused:
		return true, nil
	case cma.AnswerFailed:
		return false, fmt.Errorf("ucxtransport: %s: the receiver could not read the block (see its error)", p.what)
	default:
		return false, fmt.Errorf("ucxtransport: %s: the receiver answered %d", p.what, code)
	}
}

func (p *singleSend) finish(err error) error {
	p.done, p.err, p.b = true, err, transport.Block{}
	p.unlink()
	return err
}

// unlink drops the send as the latest offer of its key once it settled.
func (p *singleSend) unlink() {
	if p.t.offers[p.key] == p {
		delete(p.t.offers, p.key)
	}
}

// Cancel fails while the receiver may still be reading the buffer, or its
// messages are in flight after a refusal.
func (p *singleSend) Cancel() error {
	if done, _ := p.Test(); done {
		return nil
	}
	return fmt.Errorf("ucxtransport: %s: a block being read cannot be canceled", p.what)
}

// singleRecv receives a block's descriptor, reads the block and answers.
// When the kernel refuses the read, it answers so and receives the block's
// messages through UCX (refusedTag) instead.
type singleRecv struct {
	t         *Transport
	what      string
	b         transport.Block
	key       recvKey
	utag      uint64
	prev      tailRecv // an earlier receive of key that has not posted yet
	desc, ans []byte
	dreq      *ucx.Request // the descriptor's receive, once posted
	areq      *ucx.Request // the answer's send, once the read is over
	code      int          // the answer
	// before is an earlier single-copy receive of key until it settled how
	// its block moves: receives after a refusal post in RecvBlock order,
	// the order in which the sender sends their messages.
	before *singleRecv
	fb     *blockRecv // the block's messages after a refusal
	done   bool
	err    error
}

// posted reports whether the descriptor's receive is posted: a later
// receive of the same key may then post its own.
func (p *singleRecv) posted() bool { return p.done || p.dreq != nil }

// post posts the descriptor's receive once the predecessor has posted.
func (p *singleRecv) post() error {
	if p.dreq != nil || (p.prev != nil && !p.prev.posted()) {
		return nil
	}
	p.prev = nil
	var err error
	if p.dreq, err = p.t.w.RecvTag(p.desc, p.utag, exactMatch); err != nil {
		return fmt.Errorf("ucxtransport: %s: %w", p.what, err)
	}
	p.t.untail(p.key, p)
	return nil
}

// Test progresses the worker; once the descriptor is in it reads the block
// and answers the sender, and it is done when the answer went and, after a
// refusal, the block came through UCX.
func (p *singleRecv) Test() (bool, error) {
	if p.done {
		return true, p.err
	}
	p.t.progress()
	if err := p.post(); err != nil {
		return true, p.end(err)
	}
	if p.dreq == nil || !p.dreq.Done() {
		return false, nil
	}
	if p.areq == nil {
		code, err := p.read()
		if aerr := p.answer(code); aerr != nil {
			return true, p.end(errors.Join(err, aerr))
		}
		p.code, p.err = code, err
	}
	if p.code == cma.AnswerRefused && p.fb == nil {
		if p.before != nil && !p.before.settled() {
			return false, nil
		}
		p.before = nil
		if err := p.receiveRefused(); err != nil {
			return true, p.end(err)
		}
	}
	if p.fb != nil {
		if done, err := p.fb.Test(); !done {
			return false, nil
		} else if err != nil && p.err == nil {
			p.err = err
		}
	}
	if !p.areq.Done() {
		return false, nil
	}
	if err := p.areq.Err(); err != nil && p.err == nil {
		p.err = fmt.Errorf("ucxtransport: %s: answer: %w", p.what, err)
	}
	return true, p.end(p.err)
}

// settled reports whether the receive knows how its block moves.
func (p *singleRecv) settled() bool {
	return p.done || p.fb != nil || (p.areq != nil && p.code != cma.AnswerRefused)
}

// receiveRefused starts receiving through UCX the block whose read the
// kernel refused, after the receives of earlier such blocks of the key.
func (p *singleRecv) receiveRefused() error {
	key := recvKey{from: p.key.from, tag: p.key.tag, refused: true}
	fb, err := p.t.recvBytes(p.b, key, refusedTag(p.key.from, p.key.tag), p.what)
	if err != nil {
		return err
	}
	p.fb = fb
	p.t.refused++
	p.unlink()
	return nil
}

// unlink drops the receive as the latest single-copy receive of its key
// once it settled.
func (p *singleRecv) unlink() {
	if p.t.singles[p.key] == p {
		delete(p.t.singles, p.key)
	}
}

// read copies the block that the descriptor describes into b.
func (p *singleRecv) read() (int, error) {
	if err := p.dreq.Err(); err != nil {
		if ucx.IsStatus(err, ucx.StatusTruncated) {
			return cma.AnswerFailed, fmt.Errorf("ucxtransport: %s: a message larger than a descriptor came (the sender sent the block itself: do both sides agree on %s?): %w", p.what, cma.Env, err)
		}
		return cma.AnswerFailed, fmt.Errorf("ucxtransport: %s: %w", p.what, err)
	}
	n, _ := p.dreq.Info()
	var d cma.Desc
	var err error
	if n%8 != 0 {
		err = fmt.Errorf("a descriptor of %d bytes, not whole words", n)
	} else {
		d, err = cma.Decode(bytesWords(p.desc[:n]))
	}
	if err == nil {
		err = cma.Read(d, p.b)
	}
	switch {
	case err == nil:
		p.t.reads++
		return cma.AnswerRead, nil
	case errors.Is(err, cma.ErrRefused):
		return cma.AnswerRefused, nil // the block comes through UCX
	default:
		return cma.AnswerFailed, fmt.Errorf("ucxtransport: %s: %w", p.what, err)
	}
}

// answer sends code to the sender.
func (p *singleRecv) answer(code int) error {
	ep, err := p.t.endpoint(p.key.from)
	if err != nil {
		return err
	}
	p.ans = binary.LittleEndian.AppendUint64(p.ans[:0], uint64(code))
	if p.areq, err = ep.SendTag(p.ans, answerTag(p.t.rank, p.key.tag)); err != nil {
		return fmt.Errorf("ucxtransport: %s: answer: %w", p.what, err)
	}
	return nil
}

func (p *singleRecv) end(err error) error {
	p.done, p.err = true, err
	p.b = transport.Block{}
	p.t.untail(p.key, p)
	p.unlink()
	return err
}

// Cancel abandons the receive: nothing is written into the block after it
// returns. A descriptor that already came is answered as declined, so that
// the sender is not left waiting.
func (p *singleRecv) Cancel() error {
	if p.done {
		return nil
	}
	var err error
	switch {
	case p.fb != nil:
		err = errors.Join(p.fb.Cancel(), p.areq.Wait(cancelTimeout))
	case p.dreq == nil: // never posted
	case p.areq == nil:
		if err = p.dreq.Cancel(cancelTimeout); err == nil && p.dreq.Err() == nil {
			// It matched before the cancel took effect: decline it.
			if err = p.answer(cma.AnswerDeclined); err == nil {
				err = p.areq.Wait(cancelTimeout)
			}
		}
	default:
		err = p.areq.Wait(cancelTimeout)
	}
	p.end(ErrCanceled)
	if err != nil {
		return fmt.Errorf("ucxtransport: cancel %s: %w", p.what, err)
	}
	return nil
}

// wordBytes and bytesWords convert a descriptor's words to a message and
// back (little endian).
func wordBytes(w []int64) []byte {
	b := make([]byte, 0, 8*len(w))
	for _, x := range w {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func bytesWords(b []byte) []int64 {
	w := make([]int64, len(b)/8)
	for i := range w {
		w[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return w
}
