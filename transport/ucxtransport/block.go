package ucxtransport

import (
	"fmt"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/ucx"
)

// SendBlock starts sending b's sub-block to rank to: in place when it is
// contiguous in b.Buf, else packed into a new buffer, as one or more UCX
// messages of at most ChunkBytes.
func (t *Transport) SendBlock(to, tag int, b transport.Block) (transport.Pending, error) {
	if err := t.checkPeer(to, tag); err != nil {
		return nil, err
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("send %d-byte block to %s tag %d", b.Bytes(), t.describe(to), tag)
	if to == t.rank {
		if err := t.self.send(tag, b); err != nil {
			return nil, err
		}
		return donePending{t: t}, nil
	}
	data, packed, err := t.blockBytes(b)
	if err != nil {
		return nil, err
	}
	ep, err := t.endpoint(to)
	if err != nil {
		return nil, err
	}
	p := &sendPending{t: t, what: what}
	if packed {
		p.buf = data
	}
	utag := ucxTag(true, t.rank, tag)
	for _, c := range chunks(int64(len(data)), t.o.ChunkBytes) {
		r, err := ep.SendTag(data[c[0]:c[1]], utag)
		if err != nil {
			// Chunks already started finish on their own (their buffer
			// is not reused): the peer's receive of this block fails, as
			// it must.
			return nil, fmt.Errorf("ucxtransport: %s: %w", what, err)
		}
		p.reqs = append(p.reqs, r)
	}
	return p, nil
}

// RecvBlock starts receiving a sub-block from rank from into b: in place
// when it is contiguous in b.Buf, else into a buffer unpacked into b once
// every chunk has arrived.
func (t *Transport) RecvBlock(from, tag int, b transport.Block) (transport.Pending, error) {
	if err := t.checkPeer(from, tag); err != nil {
		return nil, err
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if from == t.rank {
		return t.self.recv(t, tag, b), nil
	}
	p := &blockRecv{t: t, b: b, what: fmt.Sprintf("receive %d-byte block from %s tag %d", b.Bytes(), t.describe(from), tag)}
	data := p.target()
	utag := ucxTag(true, from, tag)
	for _, c := range chunks(int64(len(data)), t.o.ChunkBytes) {
		r, err := t.w.RecvTag(data[c[0]:c[1]], utag, exactMatch)
		if err != nil {
			cancelAll(p.reqs)
			return nil, fmt.Errorf("ucxtransport: %s: %w", p.what, err)
		}
		p.reqs = append(p.reqs, r)
		p.sizes = append(p.sizes, c[1]-c[0])
	}
	return p, nil
}

// blockBytes returns the block's bytes as one slice: b.Buf's own span when
// contiguous (packed false), else a packed copy in a staging buffer.
func (t *Transport) blockBytes(b transport.Block) (data []byte, packed bool, err error) {
	if run, ok := transport.ContiguousBytes(b); ok {
		return run, false, nil
	}
	data = t.stage.get(b.Bytes())
	return data, true, transport.Pack(b, data)
}

// chunks splits n bytes into [start, end) pieces of at most size bytes;
// an empty block is one empty message, so that both sides still match.
func chunks(n, size int64) [][2]int64 {
	if n == 0 {
		return [][2]int64{{0, 0}}
	}
	var cs [][2]int64
	for off := int64(0); off < n; off += size {
		cs = append(cs, [2]int64{off, min(off+size, n)})
	}
	return cs
}

// blockRecv is a block receive in flight.
type blockRecv struct {
	t       *Transport
	what    string
	b       transport.Block
	staging []byte // the packed bytes, nil when receiving in place
	reqs    []*ucx.Request
	sizes   []int64 // expected length of every chunk
	done    bool
	err     error
}

// target returns where the bytes land: b.Buf's span or a staging buffer.
func (p *blockRecv) target() []byte {
	if run, ok := transport.ContiguousBytes(p.b); ok {
		return run
	}
	p.staging = p.t.stage.get(p.b.Bytes())
	return p.staging
}

// Test progresses the worker; once every chunk is in it checks the
// lengths and unpacks.
func (p *blockRecv) Test() (bool, error) {
	if p.done {
		return true, p.err
	}
	if !allDone(p.reqs) {
		p.t.progress()
		if !allDone(p.reqs) {
			return false, nil
		}
	}
	p.done = true
	p.err = p.finish()
	return true, p.err
}

func (p *blockRecv) finish() error {
	defer func() { p.staging = nil }()
	for i, r := range p.reqs {
		if err := r.Err(); err != nil {
			if ucx.IsStatus(err, ucx.StatusTruncated) {
				return fmt.Errorf("ucxtransport: %s: the sender's block is larger: %w", p.what, err)
			}
			return fmt.Errorf("ucxtransport: %s: %w", p.what, err)
		}
		if n, _ := r.Info(); int64(n) != p.sizes[i] {
			return fmt.Errorf("ucxtransport: %s: message %d of %d has %d bytes, want %d (the blocks differ in size)",
				p.what, i+1, len(p.reqs), n, p.sizes[i])
		}
	}
	if p.staging != nil {
		err := transport.Unpack(p.b, p.staging)
		p.t.stage.put(p.staging) // every chunk is in: UCX is done with it
		return err
	}
	return nil
}

// Cancel abandons the receive; once it returns nil no chunk is written.
func (p *blockRecv) Cancel() error {
	if p.done {
		return nil
	}
	if err := cancelAll(p.reqs); err != nil {
		return fmt.Errorf("ucxtransport: cancel %s: %w", p.what, err)
	}
	p.t.stage.put(p.staging) // UCX confirmed: nothing writes into it
	p.done, p.err, p.staging = true, ErrCanceled, nil
	return nil
}
