package ucxtransport

import (
	"errors"
	"fmt"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/ucx"
)

// SendBlock starts sending b's sub-block to rank to: by its descriptor when
// the receiver reads it (Options.SingleCopy), else in place when it is
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
	ep, err := t.endpoint(to)
	if err != nil {
		return nil, err
	}
	if single, err := t.single(to, b.Bytes()); err != nil {
		return nil, err
	} else if single {
		return t.sendSingle(ep, to, tag, b, what)
	}
	return t.sendBytes(ep, b, ucxTag(true, t.rank, tag), what)
}

// sendBytes sends b's bytes over ep with utag: in place when they are
// contiguous in b.Buf, else packed into a new buffer, as one or more UCX
// messages of at most ChunkBytes.
func (t *Transport) sendBytes(ep *ucx.Endpoint, b transport.Block, utag uint64, what string) (*sendPending, error) {
	data, packed, err := t.blockBytes(b)
	if err != nil {
		return nil, err
	}
	p := &sendPending{t: t, what: what}
	if packed {
		p.buf = data
	}
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

// RecvBlock starts receiving a sub-block from rank from into b: by reading
// it from the sender's memory once its descriptor comes (Options.SingleCopy),
// else in place when it is contiguous in b.Buf, else straight into its rows
// (Options.RecvRuns) or through a few chunk-sized staging buffers, each
// unpacked into b as soon as its chunk is in and then reused for a later
// chunk (see blockRecv). Its chunk receives are posted only once an earlier
// receive from the same rank with the same tag has posted all of its own,
// so that UCX matches every chunk to its block.
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
	key := recvKey{from: from, tag: tag}
	what := fmt.Sprintf("receive %d-byte block from %s tag %d", b.Bytes(), t.describe(from), tag)
	single, err := t.single(from, b.Bytes())
	if err != nil {
		return nil, err
	}
	if single {
		p := &singleRecv{t: t, what: what, b: b, key: key, utag: ucxTag(true, from, tag), prev: t.tail(key),
			desc: make([]byte, 8*cma.MaxWords(len(b.Shape)))}
		t.recvTail[key] = p
		if before := t.singles[key]; before != nil && !before.settled() {
			p.before = before
		}
		t.singles[key] = p
		if err := p.post(); err != nil {
			return nil, p.end(err)
		}
		return p, nil
	}
	return t.recvBytes(b, key, ucxTag(true, from, tag), what)
}

// recvBytes starts receiving the messages of key, with utag, into b (see
// RecvBlock), once an earlier receive of key has posted all of its own.
func (t *Transport) recvBytes(b transport.Block, key recvKey, utag uint64, what string) (*blockRecv, error) {
	p := &blockRecv{t: t, b: b, key: key, utag: utag, what: what, prev: t.tail(key),
		chunks: chunks(b.Bytes(), t.o.ChunkBytes)}
	t.recvTail[key] = p
	if err := p.start(); err != nil {
		return nil, err
	}
	return p, nil
}

// tailRecv is a block receive that later receives of its source and tag
// wait for: they post only once it has posted all of its messages' receives,
// so that UCX matches every message to its block.
type tailRecv interface{ posted() bool }

// tail returns the latest receive of key that has not posted all of its
// messages yet, which a new receive of key waits for; nil if there is none.
func (t *Transport) tail(key recvKey) tailRecv {
	if prev := t.recvTail[key]; prev != nil && !prev.posted() {
		return prev
	}
	return nil
}

// untail drops r as the receive that later ones of key wait for, once it
// has posted everything or ended.
func (t *Transport) untail(key recvKey, r tailRecv) {
	if t.recvTail[key] == r {
		delete(t.recvTail, key)
	}
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

// recvKey names the blocks whose chunks UCX tells apart only by order:
// those of one source and tag, and apart from them, those of the source
// and tag that move through UCX after a refused single-copy read.
type recvKey struct {
	from, tag int
	refused   bool
}

// pipeDepth is how many chunks of a packed block receive are in flight at
// once, each in its own staging buffer. A chunk is unpacked right after it
// lands, while it is still in the cache, and its buffer then takes a later
// chunk: the unpack reads from the cache instead of memory, and staging
// takes pipeDepth chunks instead of the whole block.
const pipeDepth = 4

// maxPipeChunk is the largest ChunkBytes with which packed receives are
// pipelined: pipeDepth staging buffers of larger chunks would not stay in
// the cache.
const maxPipeChunk = 16 << 20

// maxPipeRows bounds the row offsets a pipelined receive keeps; a block of
// more rows (tiny rows) is staged whole and unpacked at the end.
const maxPipeRows = 1 << 20

// blockRecv is a block receive in flight. Chunk i of the block holds bytes
// chunks[i] of its packed (C-order) form and is the i-th UCX message with
// the block's tag from the peer.
type blockRecv struct {
	t      *Transport
	what   string
	b      transport.Block
	key    recvKey
	utag   uint64
	prev   tailRecv // an earlier receive of key still posting
	chunks [][2]int64
	next   int // chunks[:next] have been posted
	// dst is where chunk bytes land when the whole block has one buffer:
	// b's span (in place) or staging unpacked at the end (whole). Else rows
	// locates packed bytes in b, and either every chunk lands straight in
	// its rows (runs) or (pipelined) every slot has its own staging.
	dst    []byte
	whole  bool
	slots  []recvSlot
	rowLen int64
	rows   []int64 // byte offset in b.Buf of every row, in packed order
	runs   bool
	done   bool
	err    error
}

// runsOf returns where packed bytes c land in b, run by run.
func (p *blockRecv) runsOf(c [2]int64) [][2]int64 {
	var runs [][2]int64
	for pos := c[0]; pos < c[1]; {
		i, in := pos/p.rowLen, pos%p.rowLen
		n := min(p.rowLen-in, c[1]-pos)
		runs = append(runs, [2]int64{p.rows[i] + in, n})
		pos += n
	}
	return runs
}

// recvSlot is one chunk receive in flight.
type recvSlot struct {
	req   *ucx.Request
	chunk int
	buf   []byte // staging of a pipelined chunk
}

// posted reports whether every chunk receive has been posted, or the
// receive has ended: a later receive of the same key may then post.
func (p *blockRecv) posted() bool { return p.done || p.next == len(p.chunks) }

// start chooses where the bytes land and posts what it can: nothing while
// an earlier receive of the same key is still posting.
func (p *blockRecv) start() error {
	if run, ok := transport.ContiguousBytes(p.b); ok {
		p.dst = run
		return p.post()
	}
	pipe := len(p.chunks) > 1 && p.t.o.ChunkBytes <= maxPipeChunk
	switch indexed := (p.t.o.RecvRuns || pipe) && p.indexRows(); {
	case indexed && p.t.o.RecvRuns:
		p.runs = true
	case !indexed:
		p.dst, p.whole = p.t.stage.get(p.b.Bytes()), true
	}
	return p.post()
}

// indexRows records the offset of every row of b, unless there are more
// than maxPipeRows.
func (p *blockRecv) indexRows() bool {
	n := int64(0)
	transport.EachRun(p.b, func(_, l int64) { n++; p.rowLen = l })
	if n > maxPipeRows {
		return false
	}
	p.rows = make([]int64, 0, n)
	transport.EachRun(p.b, func(off, _ int64) { p.rows = append(p.rows, off) })
	return true
}

// post posts chunk receives: all of them when the block has one buffer or
// lands in its rows, else up to pipeDepth in flight. It waits for the
// predecessor first.
func (p *blockRecv) post() error {
	if p.prev != nil {
		if !p.prev.posted() {
			return nil
		}
		p.prev = nil
	}
	for p.next < len(p.chunks) && (p.dst != nil || p.runs || len(p.slots) < pipeDepth) {
		s, err := p.postChunk(p.next)
		if err != nil {
			p.t.stage.put(s.buf)
			p.abort()
			return fmt.Errorf("ucxtransport: %s: %w", p.what, err)
		}
		p.slots = append(p.slots, s)
		p.next++
	}
	if p.posted() {
		p.t.untail(p.key, p)
	}
	return nil
}

// postChunk posts the receive of chunk i: into its rows, its span of the
// block's one buffer, or staging of its own.
func (p *blockRecv) postChunk(i int) (recvSlot, error) {
	c := p.chunks[i]
	s := recvSlot{chunk: i}
	var err error
	switch {
	case p.runs:
		s.req, err = p.t.w.RecvTagRuns(p.b.Buf, p.runsOf(c), p.utag, exactMatch)
	case p.dst != nil:
		s.req, err = p.t.w.RecvTag(p.dst[c[0]:c[1]], p.utag, exactMatch)
	default:
		s.buf = p.t.stage.get(p.t.o.ChunkBytes)
		s.req, err = p.t.w.RecvTag(s.buf[:c[1]-c[0]], p.utag, exactMatch)
	}
	return s, err
}

// Test progresses the worker, unpacks the chunks that are in and posts
// the next ones; it reports done once every chunk is in place.
func (p *blockRecv) Test() (bool, error) {
	if p.done {
		return true, p.err
	}
	p.t.progress()
	if err := p.post(); err != nil {
		return true, p.end(err)
	}
	for {
		moved := false
		for i := 0; i < len(p.slots); {
			s := p.slots[i]
			if !s.req.Done() {
				i++
				continue
			}
			p.slots = append(p.slots[:i], p.slots[i+1:]...)
			err := p.land(s)
			p.t.stage.put(s.buf) // the chunk is in: UCX is done with it
			if err != nil {
				return true, p.end(err)
			}
			moved = true
		}
		if !moved || p.next == len(p.chunks) {
			break
		}
		if err := p.post(); err != nil {
			return true, p.end(err)
		}
	}
	if len(p.slots) > 0 || p.next < len(p.chunks) {
		return false, nil
	}
	var err error
	if p.whole {
		err = transport.Unpack(p.b, p.dst)
	}
	return true, p.end(err)
}

// land checks a completed chunk and, when pipelined, unpacks it into b.
func (p *blockRecv) land(s recvSlot) error {
	r := s.req
	if err := r.Err(); err != nil {
		if ucx.IsStatus(err, ucx.StatusTruncated) {
			return fmt.Errorf("ucxtransport: %s: the sender's block is larger: %w", p.what, err)
		}
		return fmt.Errorf("ucxtransport: %s: %w", p.what, err)
	}
	c := p.chunks[s.chunk]
	if n, _ := r.Info(); int64(n) != c[1]-c[0] {
		return fmt.Errorf("ucxtransport: %s: message %d of %d has %d bytes, want %d (the blocks differ in size)",
			p.what, s.chunk+1, len(p.chunks), n, c[1]-c[0])
	}
	if s.buf != nil {
		p.unpackRange(s.buf[:c[1]-c[0]], c[0])
	}
	return nil
}

// unpackRange copies src, the packed bytes from position pos on, into
// their rows of b.
func (p *blockRecv) unpackRange(src []byte, pos int64) {
	cp, done := transport.RowCopier(p.b.Bytes())
	defer done()
	for _, r := range p.runsOf([2]int64{pos, pos + int64(len(src))}) {
		src = src[cp(p.b.Buf[r[0]:r[0]+r[1]], src):]
	}
}

// end finishes the receive with err, cancelling the chunks still in
// flight when it failed, and releases the staging.
func (p *blockRecv) end(err error) error {
	if err != nil && p.abort() != nil {
		p.whole = false // a chunk may still land in it: leave it be
	}
	p.done, p.err = true, err
	if p.whole {
		p.t.stage.put(p.dst)
	}
	p.dst, p.rows = nil, nil
	return err
}

// abort cancels the chunk receives in flight; their staging goes back only
// once UCX confirms that nothing writes into it any more.
func (p *blockRecv) abort() error {
	var errs []error
	for _, s := range p.slots {
		if err := s.req.Cancel(cancelTimeout); err != nil {
			errs = append(errs, err)
			continue
		}
		p.t.stage.put(s.buf)
	}
	p.slots = nil
	p.next = len(p.chunks)
	p.t.untail(p.key, p)
	return errors.Join(errs...)
}

// Cancel abandons the receive; once it returns nil no chunk is written.
func (p *blockRecv) Cancel() error {
	if p.done {
		return nil
	}
	if err := p.abort(); err != nil {
		return fmt.Errorf("ucxtransport: cancel %s: %w", p.what, err)
	}
	p.done, p.err = true, ErrCanceled
	if p.whole {
		p.t.stage.put(p.dst) // UCX confirmed: nothing writes into it
	}
	p.dst, p.rows = nil, nil
	return nil
}
