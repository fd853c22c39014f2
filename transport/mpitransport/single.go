package mpitransport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
)

// SingleCopyEnv names the environment variable that turns the single-copy
// path on for a rank ("1", "true", "on"; off when unset): blocks between
// two ranks of one node that both turned it on move by single-copy reads,
// all others by MPI's two copies. It is read at Join.
//
// It is off by default because its speed depends on the sender's pages:
// the kernel pins them one at a time, and with 4 KiB pages (the Go heap,
// malloc'd memory when transparent huge pages are "madvise") that costs
// more than the copy, so the read is slower than MPI's two copies through
// shared memory. Arrays backed by transparent huge pages read fast, and
// arrays from cma.Alloc fastest: the receiver maps them and copies with
// plain loads and stores.
const SingleCopyEnv = cma.Env

// MinSingleCopy is the smallest block that moves by a single-copy read:
// below it a descriptor round trip costs more than MPI's eager copies.
const MinSingleCopy = cma.MinBlock

// singleCopyOn switches the single-copy path at run time (SetSingleCopy).
var singleCopyOn atomic.Bool

func init() { singleCopyOn.Store(true) }

// SetSingleCopy turns the single-copy path on or off for the blocks started
// after it, in this process, between peers that Join found able to use it.
// Both sides of a block must agree, so every rank calls it with the same
// value while none of their blocks is in flight (e.g. before a barrier). It
// lets a benchmark measure both paths in one run.
func SetSingleCopy(on bool) { singleCopyOn.Store(on) }

// SingleCopyStats counts how this rank's blocks moved.
type SingleCopyStats struct {
	// ReadFrom and ReadBy are the peers this rank reads from and that read
	// from it by single copy (same node, the kernel allows it).
	ReadFrom, ReadBy int
	// Reads is the number of blocks received by a single-copy read;
	// Refused those whose read the kernel refused after Join, which then
	// moved by MPI.
	Reads, Refused int64
}

// SingleCopy reports how blocks moved so far.
func (t *Transport) SingleCopy() SingleCopyStats {
	s := t.sc.stats
	s.ReadFrom, s.ReadBy = len(t.sc.from), len(t.sc.by)
	return s
}

// singleCopy is what Join learned about single-copy peers.
type singleCopy struct {
	desc, ack mpi.Comm // descriptors (sender to receiver) and answers, apart from the data
	probe     []byte   // the word same-node peers read at Join
	from, by  map[int]bool
	stats     SingleCopyStats
	ways      int // threads one receive reads with (readWays)
}

const probeMagic = 0x636f75706c657431 // "couplet1"

// joinSingleCopy finds the peers on this node, tries a single-copy read of
// each one's probe word, and tells each peer whether this rank can read it,
// so that both sides of every pair agree on the path. Collective over the
// world; a rank with the path off publishes no probe and reads no one.
func (t *Transport) joinSingleCopy(enabled bool) error {
	sc := &t.sc
	sc.from, sc.by = map[int]bool{}, map[int]bool{}
	var err error
	if sc.desc, err = t.world.Dup(); err != nil {
		return err
	}
	if sc.ack, err = t.world.Dup(); err != nil {
		return err
	}
	me, n := t.rank, t.world.Size()
	sc.probe = make([]byte, 8)
	binary.LittleEndian.PutUint64(sc.probe, probeMagic^uint64(me))
	mine := []int64{cma.NodeKey(), int64(os.Getpid()), int64(cma.Addr(sc.probe))}
	if !enabled {
		mine[2] = 0
	}
	all := make([]int64, 3*n)
	if err := mpi.Allgather(t.world, mine, all); err != nil {
		return err
	}
	var peers []int
	for j := range n {
		if j != me && all[3*j] == mine[0] {
			peers = append(peers, j)
		}
	}
	sc.ways = readWays(runtime.NumCPU(), len(peers)+1)
	if len(peers) == 0 {
		return nil
	}
	can := make([][]int64, len(peers))
	theirs := make([][]int64, len(peers))
	var reqs []*mpi.Request
	for i, j := range peers {
		can[i], theirs[i] = []int64{0}, []int64{0}
		if enabled && all[3*j+2] != 0 {
			want := binary.LittleEndian.AppendUint64(nil, probeMagic^uint64(j))
			if cma.Probe(int(all[3*j+1]), uint64(all[3*j+2]), want) == nil {
				can[i][0] = 1
			}
		}
		s, err := mpi.Isend(sc.ack, can[i], j, 0)
		if err != nil {
			return err
		}
		r, err := mpi.Irecv(sc.ack, theirs[i], j, 0)
		if err != nil {
			return err
		}
		reqs = append(reqs, s, r)
	}
	if err := mpi.Waitall(reqs); err != nil {
		return err
	}
	for i, j := range peers {
		if can[i][0] == 1 {
			sc.from[j] = true
		}
		if theirs[i][0] == 1 {
			sc.by[j] = true
		}
	}
	return nil
}

// single reports whether b moves by a single-copy read between this rank
// and peer, given the side's set of peers.
func single(peers map[int]bool, peer int, b transport.Block) bool {
	return peers[peer] && b.Bytes() >= MinSingleCopy && singleCopyOn.Load()
}

// singleOp is an operation of the single-copy path. advance tests its
// control messages and moves it on; it reports whether the operation is
// done and, while it moves by MPI after a refusal, that bulk request.
type singleOp interface {
	transport.Pending
	advance() (done bool, bulk *mpi.Request, err error)
}

// singleSend offers a block to a receiver that reads it: a descriptor
// out, an answer back, and after a refusal the MPI send.
type singleSend struct {
	t          *Transport
	to, tag    int
	b          transport.Block
	desc, ack  []int64
	dreq, areq *mpi.Request
	fb         transport.Pending // the MPI send after a refusal
	done       bool
	err        error
}

func (t *Transport) sendSingle(to, tag int, b transport.Block) (transport.Pending, error) {
	p := &singleSend{t: t, to: to, tag: tag, b: b, desc: cma.Describe(b).Encode(), ack: []int64{0}}
	var err error
	if p.areq, err = mpi.Irecv(t.sc.ack, p.ack, to, tag); err != nil {
		return nil, err
	}
	if p.dreq, err = mpi.Isend(t.sc.desc, p.desc, to, tag); err != nil {
		p.areq.Cancel()
		return nil, err
	}
	return p, nil
}

func (p *singleSend) advance() (bool, *mpi.Request, error) {
	if p.done {
		return true, nil, p.err
	}
	if p.fb != nil {
		ok, err := p.fb.Test()
		if ok {
			p.finish(err)
			return true, nil, err
		}
		return false, p.fb.(*pending).req, nil
	}
	for _, q := range []*mpi.Request{p.dreq, p.areq} {
		if ok, _, err := q.Test(); err != nil {
			p.finish(fmt.Errorf("mpitransport: single-copy send to rank %d tag %d: %w", p.to, p.tag, err))
			return true, nil, p.err
		} else if !ok {
			return false, nil, nil
		}
	}
	switch p.ack[0] {
	case cma.AnswerRead, cma.AnswerDeclined:
		p.finish(nil)
	case cma.AnswerFailed:
		p.finish(fmt.Errorf("mpitransport: rank %d could not read the %d-byte block of tag %d", p.to, p.b.Bytes(), p.tag))
	case cma.AnswerRefused:
		fb, err := p.t.sendTwoCopy(p.to, p.tag, p.b)
		if err != nil {
			p.finish(err)
			break
		}
		p.fb = fb
		return p.advance()
	default:
		p.finish(fmt.Errorf("mpitransport: rank %d answered %d to a block descriptor", p.to, p.ack[0]))
	}
	return true, nil, p.err
}

// offered reports whether the descriptor went out and the sender waits
// for the answer, while the receiver reads.
func (p *singleSend) offered() bool {
	return !p.done && p.fb == nil && !p.dreq.Active()
}

func (p *singleSend) finish(err error) {
	p.done, p.err = true, err
	p.b = transport.Block{} // the receiver is done with the buffer
}

// Test advances the send and reports whether the buffer may be reused.
func (p *singleSend) Test() (bool, error) {
	done, _, err := p.advance()
	return done, err
}

// Cancel fails for a send in flight, as MPI sends cannot be taken back.
func (p *singleSend) Cancel() error {
	if done, _, _ := p.advance(); done {
		return nil
	}
	return fmt.Errorf("mpitransport: a single-copy send to rank %d in flight cannot be canceled", p.to)
}

// singleRecv reads a block whose descriptor it receives, then answers.
type singleRecv struct {
	t          *Transport
	from, tag  int
	b          transport.Block
	desc, ack  []int64
	d          *cma.Desc // the decoded descriptor, once it came
	came       time.Time // when it came
	dreq, areq *mpi.Request
	fb         transport.Pending // the MPI receive after a refusal
	done       bool
	err        error
}

func (t *Transport) recvSingle(from, tag int, b transport.Block) (transport.Pending, error) {
	p := &singleRecv{t: t, from: from, tag: tag, b: b, desc: make([]int64, cma.MaxWords(len(b.Shape))), ack: []int64{0}}
	var err error
	if p.dreq, err = mpi.Irecv(t.sc.desc, p.desc, from, tag); err != nil {
		return nil, err
	}
	return p, nil
}

// ready reports whether the descriptor came and the block awaits its read
// (readAll).
func (p *singleRecv) ready() bool { return !p.done && p.d != nil && p.areq == nil }

// awaiting reports whether the descriptor has not come yet.
func (p *singleRecv) awaiting() bool { return !p.done && p.d == nil && p.areq == nil }

func (p *singleRecv) advance() (bool, *mpi.Request, error) {
	if p.done {
		return true, nil, p.err
	}
	if p.areq == nil {
		if p.d != nil {
			return false, nil, nil // ready: the caller reads it
		}
		ok, st, err := p.dreq.Test()
		if err != nil {
			p.finish(fmt.Errorf("mpitransport: block descriptor from rank %d tag %d: %w", p.from, p.tag, err))
			return true, nil, p.err
		}
		if !ok {
			return false, nil, nil
		}
		d, err := cma.Decode(p.desc[:st.Count/8])
		if err != nil {
			if err := p.answer(err); err != nil {
				p.finish(err)
				return true, nil, err
			}
		} else {
			p.d, p.came = &d, time.Now()
			return false, nil, nil
		}
	}
	var bulk *mpi.Request
	if p.fb != nil {
		ok, err := p.fb.Test()
		if err != nil && p.err == nil {
			p.err = err
		}
		if !ok {
			bulk = p.fb.(*pending).req
		}
	}
	ok, _, err := p.areq.Test()
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("mpitransport: answer to rank %d tag %d: %w", p.from, p.tag, err)
	}
	if !ok || bulk != nil {
		return false, bulk, nil
	}
	p.finish(p.err)
	return true, nil, p.err
}

// readPiece is the smallest share of a block that one thread reads when
// a rank reads with several (see readWays).
const readPiece = 4 << 20

// readWays is how many threads one receiving rank reads with: its share
// of the node's cores, counting about half the node's ranks as receivers,
// but two where there are two cores, so that a receiver whose peers
// finished first still uses both. Copies need a core each; more readers
// than that only switch between one another (4 goroutines per block ran
// 16 copy threads per reader for 4 writers and 2 readers on 2 cores), and
// each extra thread is a wake-up through the Go scheduler. On that node,
// unbound, 2 ways read 256 MiB rounds in 0.056-0.070 s where 1 way took
// 0.070-0.107. The cores counted are those the rank may run on
// (runtime.NumCPU): one where mpirun binds each rank to a core, as couplet
// bench's launches do, so such a rank reads with one way (readAll).
func readWays(cores, nodeRanks int) int {
	return max(1, min(cores, max(2, 2*cores/max(1, nodeRanks))))
}

// readChunk is a share of one block's bytes: [lo, lo+n) of ops[op].
type readChunk struct {
	op    int
	lo, n int64
}

// readPlan cuts blocks of the given sizes into the chunks that ways
// threads read: whole blocks for one thread, else each block in up to
// ways chunks of at least readPiece bytes, in block order.
func readPlan(sizes []int64, ways int) []readChunk {
	var out []readChunk
	for i, n := range sizes {
		k := int64(1)
		if ways > 1 {
			k = max(1, min(int64(ways), n/readPiece))
		}
		for w := range k {
			lo, hi := n*w/k, n*(w+1)/k
			out = append(out, readChunk{i, lo, hi - lo})
		}
	}
	return out
}

// readAll reads the blocks of ops, whose descriptors came, then answers
// every sender. With one way it reads them together on the calling thread
// (cma.ReadEach); with more, the caller and ways-1 goroutines (each a
// thread in the kernel's copy) take chunks of readPlan in turn.
func (t *Transport) readAll(ops []*singleRecv) {
	var errs []error
	if t.sc.ways == 1 {
		ds := make([]cma.Desc, len(ops))
		bs := make([]transport.Block, len(ops))
		for i, p := range ops {
			ds[i], bs[i] = *p.d, p.b
		}
		errs = cma.ReadEach(ds, bs)
	} else {
		errs = t.readChunks(ops)
	}
	for i, p := range ops {
		if err := p.answer(errs[i]); err != nil {
			p.finish(err)
		}
	}
}

// readChunks reads the blocks of ops in chunks of readPlan, taken in turn
// by the caller and ways-1 goroutines, and returns each block's error.
func (t *Transport) readChunks(ops []*singleRecv) []error {
	errs := make([]error, len(ops))
	sizes := make([]int64, len(ops))
	for i, p := range ops {
		sizes[i] = p.b.Bytes()
	}
	plan := readPlan(sizes, t.sc.ways)
	var mu sync.Mutex
	var next atomic.Int64
	work := func() {
		for {
			k := next.Add(1) - 1
			if k >= int64(len(plan)) {
				return
			}
			c := plan[k]
			p := ops[c.op]
			if err := cma.ReadRange(*p.d, p.b, c.lo, c.n); err != nil {
				mu.Lock()
				if errs[c.op] == nil {
					errs[c.op] = err
				}
				mu.Unlock()
			}
		}
	}
	var wg sync.WaitGroup
	for range min(t.sc.ways, len(plan)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return errs
}

// answer tells the sender how the read went: read, refused (then the block
// comes by MPI, whose receive is posted first) or failed. The outcome of
// the receive is kept in p.err; the error returned is the answer's own.
func (p *singleRecv) answer(err error) error {
	code := int64(cma.AnswerRead)
	switch {
	case err == nil:
		p.t.sc.stats.Reads++
	case errors.Is(err, cma.ErrRefused):
		code, err = cma.AnswerRefused, nil
		p.t.sc.stats.Refused++
		if p.fb, err = p.t.recvTwoCopy(p.from, p.tag, p.b); err != nil {
			code = cma.AnswerFailed
		}
	default:
		code = cma.AnswerFailed
		err = fmt.Errorf("mpitransport: single-copy read from rank %d tag %d: %w", p.from, p.tag, err)
	}
	p.err = err
	p.ack[0] = code
	q, aerr := mpi.Isend(p.t.sc.ack, p.ack, p.from, p.tag)
	if aerr != nil {
		return errors.Join(err, aerr)
	}
	p.areq = q
	return nil
}

func (p *singleRecv) finish(err error) {
	p.done, p.err = true, err
	p.b = transport.Block{}
}

// Test advances the receive, reading the block if its descriptor came,
// and reports whether the block has arrived.
func (p *singleRecv) Test() (bool, error) {
	p.advance()
	if p.ready() {
		p.t.readAll([]*singleRecv{p})
	}
	done, _, err := p.advance()
	return done, err
}

// Cancel abandons the receive: nothing is written into the block after it
// returns. A descriptor that already came is answered as declined, so the
// sender is not left waiting; after a refusal the sender sends the block by
// MPI, which Cancel then takes (it is in the block when Cancel returns).
func (p *singleRecv) Cancel() error {
	if p.done {
		return nil
	}
	if p.areq == nil {
		err := p.dreq.Cancel() // p.desc was zero until a descriptor came (p.d then set)
		if p.desc[0] != 0 {
			// It matched before the cancel took effect: decline it.
			p.ack[0] = cma.AnswerDeclined
			if q, aerr := mpi.Isend(p.t.sc.ack, p.ack, p.from, p.tag); aerr == nil {
				_, aerr = q.WaitTimeout(p.t.timeout)
				err = errors.Join(err, aerr)
			} else {
				err = errors.Join(err, aerr)
			}
		}
		p.finish(errCanceled)
		return err
	}
	var err error
	if fb, ok := p.fb.(*pending); ok {
		// Canceled, the receive would leave the sender's MPI send, which
		// the refusal promised, waiting for a receive that never comes.
		// Only a sender silent for the timeout gets it canceled.
		if _, err = fb.req.WaitTimeout(p.t.timeout); err != nil {
			err = errors.Join(err, fb.Cancel())
		}
		fb.free()
	}
	if _, werr := p.areq.WaitTimeout(p.t.timeout); werr != nil {
		err = errors.Join(err, werr)
	}
	p.finish(errCanceled)
	return err
}

// errCanceled is the outcome of a receive abandoned with Cancel.
var errCanceled = errors.New("mpitransport: receive canceled")
