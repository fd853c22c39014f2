package protocol

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/replay"
)

// The simulation runs writers, readers and matchers of several sessions in
// one process: the Writer, Reader and Matcher state machines the engine
// drives, each driven here as the engine drives it (a mailbox for messages a
// role does not take yet, data sends and posted receives matched in MPI
// order, cancels, ticks for timeouts). A seeded scheduler delivers messages
// in any order MPI allows (FIFO per sender, receiver and tag), starts ranks'
// rounds and epochs at any point between deliveries, changes patterns
// between cycles (a repeated one replays), closes readers early, and kills
// a rank at a random step in some runs.
//
// Invariants checked on every run:
//   - every element a reader asks for arrives with the value of the last
//     write to it in that epoch, or is reported missing exactly when no
//     write covers it;
//   - without a killed rank every rank finishes (no deadlock) and no message
//     is left undrained: every control message is handled, every data send
//     received and every posted receive matched;
//   - with a killed rank the run still ends: every live rank left waiting
//     ends with its role's named timeout error within the timeout (ticks),
//     and what did arrive is right;
//   - replay decides the same as matching: writers that replay their records
//     deliver exactly what fresh matching would (the same value check), and
//     a writer replays exactly when its writes equal its recorded epoch.

var (
	seedFlag  = flag.Int64("seed", -1, "run only this simulation seed (printed by a failing run)")
	seedsFlag = flag.Int("seeds", 5000, "simulation seeds to run (500 under the race detector)")
	verbose   = flag.Bool("simlog", false, "print the simulation's steps")
)

const ctlTag = 1

// simMsg is a message in flight: a control message (encoded, as on the
// wire) or a data block of element values.
type simMsg struct {
	from, to, tag int
	ctl           []byte
	data          []int64
	send          *dataSend // the writer's send it completes
}

type chanKey struct{ from, to, tag int }

// dataSend is a writer's data send; it completes when a receive takes it.
type dataSend struct{ done bool }

type sim struct {
	t      testing.TB
	rng    *rand.Rand
	log    []string
	nW, nR int
	nM     int
	L      int64 // variable length (one 1-D variable)
	cycles int
	epochs int
	rounds int // read rounds per epoch: the last is final (a transfer), earlier ones are blocking gets
	part   *matcher.Partition
	pat    []int // each cycle's I/O pattern; a repeated one replays
	// Readers close the session after epoch earlyAt from cycle earlyFrom
	// on (-1: never early).
	earlyFrom, earlyAt int

	chans   map[chanKey][]*simMsg // in flight, FIFO per channel
	arrived map[chanKey][]*simMsg // data delivered, not yet received
	dead    map[int]bool
	killAt  int // step at which victim dies (-1: never)
	victim  int
	steps   int
	// timedOut counts ranks that ended with a timeout error.
	timedOut int
	// wchg and rchg make one writer or reader change its pattern alone.
	wchg, rchg change
	// outcomes counts per cycle the replay outcomes of the writers'
	// epochs and the readers' recorded rounds ("writer:hit" ...).
	outcomes map[int]map[string]int

	matchers []*Matcher // by writer rank < nM
	writers  []*simWriter
	readers  []*simReader
	errs     []string
}

func (s *sim) logf(format string, a ...any) {
	if *verbose {
		s.log = append(s.log, fmt.Sprintf(format, a...))
	}
}

func (s *sim) fail(format string, a ...any) { s.errs = append(s.errs, fmt.Sprintf(format, a...)) }

func (s *sim) sendCtl(from, to int, m *Envelope) {
	b, err := m.Encode()
	if err != nil {
		s.fail("encode %s: %v", m.Kind, err)
		return
	}
	k := chanKey{from, to, ctlTag}
	s.chans[k] = append(s.chans[k], &simMsg{from: from, to: to, tag: ctlTag, ctl: b})
}

func (s *sim) sendData(from, to, tag int, data []int64) *dataSend {
	d := &dataSend{}
	k := chanKey{from, to, tag}
	s.chans[k] = append(s.chans[k], &simMsg{from: from, to: to, tag: tag, data: data, send: d})
	return d
}

// dataTag keeps sessions' transfers apart, as the file slot does.
func dataTag(cycle int, id int64) int { return 2 + cycle%4*1_000_000 + int(id) }

// value is what writer w's write seq puts in element x in an epoch.
func value(cycle, epoch, w int, seq int64, x int64) int64 {
	return int64(cycle)<<48 | int64(epoch)<<40 | int64(w)<<32 | seq<<20 | x
}

// ---- writers ----

type simWrite struct {
	seq  int64
	box  matcher.Box
	vals []int64
}

// simWriter drives the writer role (Writer) of one rank as the engine
// does, holding the data of its writes.
type simWriter struct {
	s       *sim
	rank    int
	cycle   int
	started bool
	done    bool
	role    *Writer
	recs    *Records
	writes  []simWrite
	bySeq   map[int64]simWrite
	sends   []*dataSend
	pattern map[[2]int][]matcher.Box // (cycle pattern, epoch) -> boxes
	last    map[int][]matcher.Box    // epoch -> the boxes of its last clean end (the record's)
	hits    int
}

// plan returns writer w's write boxes for an epoch: inside its own part of
// the variable, overlapping one another, with holes.
func (s *sim) plan(rng *rand.Rand, w int) []matcher.Box {
	lo, hi := int64(w)*s.L/int64(s.nW), int64(w+1)*s.L/int64(s.nW)
	var out []matcher.Box
	for range 1 + rng.IntN(3) {
		if hi <= lo {
			break
		}
		a := lo + rng.Int64N(hi-lo)
		b := a + 1 + rng.Int64N(hi-a)
		out = append(out, matcher.NewBox([]int64{a}, []int64{b - a}))
	}
	return out
}

// session describes a cycle's session as the roles see it; every cycle's
// file shares one section and record slot, so a repeated pattern replays.
func (s *sim) session(cycle, rank int, world []int) Session {
	peers := make([]int, s.nW)
	for i := range peers {
		peers[i] = i
	}
	return Session{Path: s.path(cycle), Rank: rank, World: world, Peers: peers, Part: s.part, Replay: true}
}

func (w *simWriter) start() {
	s := w.s
	if w.role == nil {
		w.role = NewWriter(s.session(w.cycle, w.rank, s.writerWorld()), w.recs)
	}
	epoch := w.role.Epoch()
	w.started = true
	boxes := w.pattern[[2]int{s.wpattern(w.rank, w.cycle), epoch}]
	w.writes, w.bySeq = nil, map[int64]simWrite{}
	var ps []Piece
	for i, b := range boxes {
		sw := simWrite{seq: int64(i + 1), box: b}
		for x := b.Start[0]; x < b.End(0); x++ {
			sw.vals = append(sw.vals, value(w.cycle, epoch, w.rank, sw.seq, x))
		}
		w.writes = append(w.writes, sw)
		w.bySeq[sw.seq] = sw
		ps = append(ps, Piece{ID: sw.seq, Box: b})
	}
	rd := w.role.EndEpoch(ps, 0, epoch == s.epochs, false, int64(s.steps))
	hit := w.role.Outcome() == replay.Hit
	last, ok := w.last[epoch]
	if want := ok && slices.EqualFunc(last, boxes, matcher.Box.Equal); hit != want {
		s.fail("w%d c%d e%d: replay hit %v, but its writes equal its recorded epoch's: %v", w.rank, w.cycle, epoch, hit, want)
	}
	if hit {
		w.hits++
	}
	s.logf("w%d c%d e%d start hit=%v writes=%v", w.rank, w.cycle, epoch, hit, boxes)
	w.do(rd)
}

func (s *sim) writerWorld() []int {
	out := make([]int, s.nW)
	for i := range out {
		out[i] = i
	}
	return out
}

func cmpInts(a, b []int) int { return slices.Compare(a, b) }

// do carries out what the writer role asks for.
func (w *simWriter) do(rd WriterReady) {
	for _, x := range rd.Sends {
		w.s.sendCtl(w.rank, x.To, x.Msg)
	}
	for _, t := range rd.Data {
		x, ok := w.bySeq[t.T.Seq]
		if !ok {
			w.s.fail("w%d: schedule names write %d, which it does not hold", w.rank, t.T.Seq)
			continue
		}
		var data []int64
		for e := t.T.Box.Start[0]; e < t.T.Box.End(0); e++ {
			data = append(data, x.vals[e-x.box.Start[0]])
		}
		w.sends = append(w.sends, w.s.sendData(w.rank, t.Peer, dataTag(w.cycle, t.ID), data))
	}
}

func (w *simWriter) handle(m *Envelope) {
	if w.role == nil || !w.started || !w.role.Accepts(m) {
		w.s.fail("w%d: %s for %s epoch %d while in cycle %d (started %v)", w.rank, m.Kind, m.Path, m.Epoch, w.cycle, w.started)
		return
	}
	rd, err := w.role.Step(m)
	if err != nil {
		w.s.fail("w%d: %v", w.rank, err)
	}
	w.do(rd)
}

// progress ends the writer's epoch once every matcher is done and every
// data send was received, as the engine's endWriterEpoch waits.
func (w *simWriter) progress() bool {
	if !w.started || !w.role.MatchersDone() {
		return false
	}
	for _, d := range w.sends {
		if !d.done {
			return false
		}
	}
	epoch := w.role.Epoch()
	w.s.logf("w%d c%d e%d end", w.rank, w.cycle, epoch)
	if epoch < w.s.epochs {
		w.s.note(w.cycle, "writer", w.role.Outcome())
	}
	if err := w.role.Finish(nil); err != nil {
		w.s.fail("w%d c%d e%d: %v", w.rank, w.cycle, epoch, err)
	}
	w.last[epoch] = w.pattern[[2]int{w.s.wpattern(w.rank, w.cycle), epoch}]
	w.sends, w.started = nil, false
	if epoch == w.s.epochs { // the closing epoch ended the session
		w.role = nil
		w.cycle++
		if w.cycle == w.s.cycles {
			w.done = true
		}
	}
	return true
}

// ---- readers ----

type simRead struct {
	id  int64
	box matcher.Box
	got []int64
	has []bool
}

type recvPost struct {
	id        int
	key       chanKey
	read      *simRead // nil: a drain
	off       int64
	n         int64
	done      bool
	cancelled bool
}

// simReader drives the reader role (Reader) of one rank as the engine does:
// messages the role does not accept yet wait in a mailbox, receives are
// posted and cancelled as the role asks, and matched in MPI order.
type simReader struct {
	s       *sim
	rank    int
	world   int
	cycle   int
	sub     int // round within the epoch
	started bool
	done    bool
	closing bool
	role    *Reader
	recs    *Records
	mail    []*Envelope
	reads   []*simRead
	byID    map[int64]*simRead
	posts   map[int]*recvPost
	order   []*recvPost // posting order
	nextID  int64
	drained int
	hits    int
	pushed  int
}

// readPlan returns reader r's read boxes for round sub of an epoch.
func (s *sim) readPlan(cycle, epoch, sub, r int) []matcher.Box {
	rng := rand.New(rand.NewPCG(uint64(s.rpattern(r, cycle)), uint64(epoch*97+sub*31+r)))
	var out []matcher.Box
	for range 1 + rng.IntN(2) {
		a := rng.Int64N(s.L)
		b := a + 1 + rng.Int64N(s.L-a)
		out = append(out, matcher.NewBox([]int64{a}, []int64{b - a}))
	}
	return out
}

// closeAt is the epoch at which readers close the session of a cycle: all
// epochs, or earlier in cycles that close early.
func (s *sim) closeAt(cycle int) int {
	if s.earlyFrom >= 0 && cycle >= s.earlyFrom {
		return s.earlyAt
	}
	return s.epochs
}

func (s *sim) readerWorld() []int {
	out := make([]int, s.nR)
	for i := range out {
		out[i] = s.nW + i
	}
	return out
}

func (r *simReader) start() {
	s := r.s
	if r.role == nil {
		r.role = NewReader(s.session(r.cycle, r.rank, s.readerWorld()), r.recs)
	}
	epoch := r.role.Epoch()
	r.started = true
	r.closing = epoch == s.closeAt(r.cycle)
	final := r.closing || r.sub == s.rounds-1
	r.reads, r.byID, r.posts, r.order = nil, map[int64]*simRead{}, map[int]*recvPost{}, nil
	var ps []Piece
	if !r.closing {
		for _, b := range s.readPlan(r.cycle, epoch, r.sub, r.rank) {
			r.nextID++
			sr := &simRead{id: r.nextID, box: b, got: make([]int64, b.Count[0]), has: make([]bool, b.Count[0])}
			r.reads = append(r.reads, sr)
			r.byID[sr.id] = sr
			ps = append(ps, Piece{ID: sr.id, Box: b})
		}
	}
	rd := r.role.StartRound(ps, final, r.closing, true, int64(s.steps))
	s.logf("r%d c%d e%d round %d start closing=%v reads=%d", r.rank, r.cycle, epoch, r.sub, r.closing, len(r.reads))
	r.do(rd)
}

// do carries out what the reader role asks for.
func (r *simReader) do(rd ReaderReady) {
	s := r.s
	for _, x := range rd.Sends {
		s.sendCtl(r.world, x.To, x.Msg)
	}
	if rd.Pushed {
		r.pushed++
	}
	for _, id := range rd.Cancel {
		if p := r.posts[id]; p != nil && !p.done {
			p.cancelled = true
		}
	}
	for _, p := range rd.Posts {
		rp := &recvPost{id: p.ID, key: chanKey{p.T.Peer, r.world, dataTag(r.cycle, p.T.ID)}, n: p.T.T.Box.Count[0]}
		if p.Drain {
			r.drained++
		} else {
			sr := r.byID[p.T.T.ReadID]
			if sr == nil {
				s.fail("r%d: schedule names read %d, which it did not ask for", r.rank, p.T.T.ReadID)
				continue
			}
			rp.read, rp.off = sr, p.T.T.Box.Start[0]-sr.box.Start[0]
		}
		r.posts[p.ID] = rp
		r.order = append(r.order, rp)
	}
	for _, id := range append(slices.Clone(rd.Confirm), rd.Keep...) {
		if r.posts[id] == nil {
			s.fail("r%d: the role confirms receive %d, which it never posted", r.rank, id)
		}
	}
}

func (r *simReader) handle(m *Envelope) {
	if m.Kind != Expect && m.Kind != Verdict {
		r.s.fail("r%d: unexpected %s", r.rank, m.Kind)
		return
	}
	r.mail = append(r.mail, m)
}

// match lets posted receives take data that arrived, in MPI order: each
// channel's messages go to its posted receives in posting order.
func (r *simReader) match() bool {
	moved := false
	for _, p := range r.order {
		if p.done || p.cancelled {
			continue
		}
		q := r.s.arrived[p.key]
		if len(q) == 0 {
			continue
		}
		msg := q[0]
		r.s.arrived[p.key] = q[1:]
		p.done, moved = true, true
		msg.send.done = true
		if int64(len(msg.data)) != p.n {
			r.s.fail("r%d: received %d elements into a receive of %d (tag %d from %d)", r.rank, len(msg.data), p.n, p.key.tag, p.key.from)
			continue
		}
		if p.read != nil {
			for i, v := range msg.data {
				p.read.got[p.off+int64(i)] = v
				p.read.has[p.off+int64(i)] = true
			}
		}
	}
	return moved
}

func (r *simReader) allDone(ids []int) bool {
	for _, id := range ids {
		if p := r.posts[id]; p == nil || !p.done {
			return false
		}
	}
	return true
}

func (r *simReader) progress() bool {
	if !r.started {
		return false
	}
	moved := false
	for i := 0; i < len(r.mail); {
		m := r.mail[i]
		if !r.role.Accepts(m) {
			i++
			continue
		}
		r.mail = slices.Delete(r.mail, i, i+1)
		rd, err := r.role.Step(m)
		if err != nil {
			r.s.fail("r%d: %v", r.rank, err)
		}
		r.do(rd)
		moved = true
	}
	if st := r.role.Stale(); len(st) > 0 && r.allDone(st) {
		r.do(r.role.StaleDone())
		moved = true
	}
	if !r.role.Answered() || !r.allDone(r.role.Receives()) {
		return moved
	}
	epoch := r.role.Epoch()
	r.check(epoch, r.role.Missing())
	if err := r.role.Errs(); err != nil {
		r.s.fail("r%d c%d e%d: %v", r.rank, r.cycle, epoch, err)
	}
	out, ended := r.role.EndRound(nil)
	if out == replay.Hit {
		r.hits++
	}
	r.s.note(r.cycle, "reader", out)
	r.s.logf("r%d c%d e%d round %d end (replay %s, epoch ended %v)", r.rank, r.cycle, epoch, r.sub, out, ended)
	r.started = false
	r.sub++
	if !ended {
		return true
	}
	r.sub = 0
	if r.closing {
		r.role, r.nextID = nil, 0
		r.cycle++
		if r.cycle == r.s.cycles {
			r.done = true
		}
	}
	return true
}

// check compares what arrived with the last write of each element.
func (r *simReader) check(epoch int, miss []matcher.Uncovered) {
	s := r.s
	missing := map[[2]int64]bool{}
	for _, u := range miss {
		for _, b := range u.Missing {
			for x := b.Start[0]; x < b.End(0); x++ {
				missing[[2]int64{u.ReadID, x}] = true
			}
		}
	}
	for _, sr := range r.reads {
		for i := range sr.got {
			x := sr.box.Start[0] + int64(i)
			want, ok := s.lastWrite(r.cycle, epoch, x)
			switch {
			case ok && !sr.has[i]:
				s.fail("r%d c%d e%d: element %d never arrived (missing=%v)", r.rank, r.cycle, epoch, x, missing[[2]int64{sr.id, x}])
			case ok && sr.got[i] != want:
				s.fail("r%d c%d e%d: element %d = %x, want %x", r.rank, r.cycle, epoch, x, sr.got[i], want)
			case !ok && !missing[[2]int64{sr.id, x}]:
				s.fail("r%d c%d e%d: element %d was never written but not reported missing", r.rank, r.cycle, epoch, x)
			case ok && missing[[2]int64{sr.id, x}]:
				s.fail("r%d c%d e%d: element %d was written but reported missing", r.rank, r.cycle, epoch, x)
			}
		}
	}
}

// lastWrite is the value of element x after every write of an epoch: the
// highest Seq of the writer that owns x.
func (s *sim) lastWrite(cycle, epoch int, x int64) (int64, bool) {
	for w, sw := range s.writers {
		boxes := sw.pattern[[2]int{s.wpattern(w, cycle), epoch}]
		for i := len(boxes) - 1; i >= 0; i-- {
			b := boxes[i]
			if x >= b.Start[0] && x < b.End(0) {
				return value(cycle, epoch, w, int64(i+1), x), true
			}
		}
	}
	return 0, false
}

// ---- the run ----

type simCase struct {
	nW, nR, nM, cycles, epochs int
	L                          int64
}

func (s *sim) path(cycle int) string { return "c" + strconv.Itoa(cycle) + ".nc" }

// patterns: cycle k uses pattern pat[k]; equal patterns replay.
func (s *sim) patternOf(cycle int) int { return s.pat[cycle] }

// changedPattern is the pattern of a rank that changes alone (change).
const changedPattern = 1000

// change makes one rank use a pattern of its own from a cycle on.
type change struct{ rank, from int }

func (c change) applies(rank, cycle int) bool {
	return c.from >= 0 && rank == c.rank && cycle >= c.from
}

// wpattern and rpattern are the patterns of writer w and reader r in a cycle.
func (s *sim) wpattern(w, cycle int) int {
	if s.wchg.applies(w, cycle) {
		return changedPattern
	}
	return s.pat[cycle]
}

func (s *sim) rpattern(r, cycle int) int {
	if s.rchg.applies(r, cycle) {
		return changedPattern
	}
	return s.pat[cycle]
}

func newSim(t testing.TB, seed int64) *sim {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	s := &sim{t: t, rng: rng, chans: map[chanKey][]*simMsg{}, arrived: map[chanKey][]*simMsg{}, dead: map[int]bool{}, killAt: -1,
		wchg: change{-1, -1}, rchg: change{-1, -1}, outcomes: map[int]map[string]int{}}
	s.nW, s.nR = 1+rng.IntN(3), 1+rng.IntN(3)
	s.nM = 1 + rng.IntN(s.nW)
	s.L = int64(4 + rng.IntN(20))
	s.cycles, s.epochs = 1+rng.IntN(4), 1+rng.IntN(3)
	s.rounds = 1 + rng.IntN(2)
	s.earlyFrom, s.earlyAt = -1, 0
	if s.epochs > 1 && rng.IntN(3) == 0 {
		s.earlyFrom, s.earlyAt = rng.IntN(s.cycles), 1+rng.IntN(s.epochs-1)
	}
	// Patterns change between cycles at random; a repeated one replays.
	s.pat = make([]int, s.cycles)
	for k := 1; k < s.cycles; k++ {
		s.pat[k] = s.pat[k-1]
		if rng.IntN(3) == 0 {
			s.pat[k] = k
		}
	}
	s.build(rng)
	if rng.IntN(5) == 0 {
		s.victim = rng.IntN(s.nW + s.nR)
		s.killAt = rng.IntN(60)
	}
	// Drawn last, so that the other draws of a seed stay as they were:
	// some epochs have two blocking-get rounds before the final one.
	if s.rounds == 2 && rng.IntN(3) == 0 {
		s.rounds = 3
	}
	return s
}

// build makes the matchers, writers and readers, drawing the writers'
// patterns from rng.
func (s *sim) build(rng *rand.Rand) {
	t := s.t
	var err error
	if s.part, err = matcher.NewPartition(matcher.ModeRange, s.nM); err != nil {
		t.Fatal(err)
	}
	if err := s.part.SetShape(0, []int64{s.L}); err != nil {
		t.Fatal(err)
	}
	for m := range s.nM {
		s.matchers = append(s.matchers, NewMatcher(MatcherConfig{Self: m, IDs: 1 << 16, TagUB: 1<<31 - 1,
			Matchers: func(int) int { return s.nM }, Slot: func(_, session int) int { return session }}))
	}
	for w := range s.nW {
		sw := &simWriter{s: s, rank: w, recs: NewRecords(), pattern: map[[2]int][]matcher.Box{}, last: map[int][]matcher.Box{}}
		pats := slices.Compact(slices.Clone(s.pat))
		if s.wchg.rank == w {
			pats = append(pats, changedPattern)
		}
		for _, p := range pats {
			for e := 0; e < s.epochs; e++ {
				sw.pattern[[2]int{p, e}] = s.plan(rng, w)
			}
		}
		s.writers = append(s.writers, sw)
	}
	for r := range s.nR {
		s.readers = append(s.readers, &simReader{s: s, rank: r, world: s.nW + r, recs: NewRecords()})
	}
}

// note counts a role's replay outcome of an epoch or round in a cycle.
func (s *sim) note(cycle int, role string, o replay.Outcome) {
	if o == replay.Off {
		return
	}
	if s.outcomes[cycle] == nil {
		s.outcomes[cycle] = map[string]int{}
	}
	s.outcomes[cycle][role+":"+o.String()]++
}

// event is one thing the scheduler may do next.
type event struct {
	deliver *chanKey
	start   int // rank to start its next epoch, -1 none
}

func (s *sim) events() []event {
	var evs []event
	for _, k := range slices.SortedFunc(maps.Keys(s.chans), func(a, b chanKey) int {
		return cmpInts([]int{a.from, a.to, a.tag}, []int{b.from, b.to, b.tag})
	}) {
		if len(s.chans[k]) > 0 {
			evs = append(evs, event{deliver: &k, start: -1})
		}
	}
	for _, w := range s.writers {
		if !w.done && !w.started && !s.dead[w.rank] {
			evs = append(evs, event{start: w.rank})
		}
	}
	for _, r := range s.readers {
		if !r.done && !r.started && !s.dead[r.world] {
			evs = append(evs, event{start: r.world})
		}
	}
	return evs
}

func (s *sim) run() {
	for s.steps = 0; ; s.steps++ {
		if s.steps == s.killAt {
			s.dead[s.victim] = true
			s.logf("kill rank %d", s.victim)
		}
		if s.steps > 100000 {
			s.fail("no end after %d steps (livelock)", s.steps)
			return
		}
		evs := s.events()
		if len(evs) == 0 {
			return
		}
		ev := evs[s.rng.IntN(len(evs))]
		if ev.deliver == nil {
			if ev.start < s.nW {
				s.writers[ev.start].start()
			} else {
				s.readers[ev.start-s.nW].start()
			}
			s.settle()
			continue
		}
		k := *ev.deliver
		msg := s.chans[k][0]
		s.chans[k] = s.chans[k][1:]
		if len(s.chans[k]) == 0 {
			delete(s.chans, k)
		}
		if s.dead[k.to] {
			continue // lost with its receiver
		}
		if msg.ctl == nil {
			s.arrived[k] = append(s.arrived[k], msg)
		} else {
			m, err := Decode(msg.ctl)
			if err != nil {
				s.fail("decode: %v", err)
				continue
			}
			m.From = k.from
			s.logf("deliver %s %d->%d e%d r%d", m.Kind, k.from, k.to, m.Epoch, m.Round)
			s.handle(k.to, m)
		}
		s.settle()
	}
}

func (s *sim) handle(to int, m *Envelope) {
	switch m.Kind {
	case WriteReqs, ReadReqs, RecsQuery, DoneMultiple:
		if to >= s.nM {
			s.fail("%s sent to rank %d, which is no matcher", m.Kind, to)
			return
		}
		rd, err := s.matchers[to].Step(m)
		if err != nil {
			s.fail("matcher %d: %v", to, err)
		}
		for _, x := range rd.Sends {
			s.sendCtl(to, x.To, x.Msg)
		}
	case Schedule, EpochDone:
		s.writers[to].handle(m)
	default:
		s.readers[to-s.nW].handle(m)
	}
}

// settle lets every live rank make what progress it can without a message.
func (s *sim) settle() {
	for moved := true; moved; {
		moved = false
		for _, r := range s.readers {
			if !s.dead[r.world] {
				moved = r.match() || moved
				moved = r.progress() || moved
			}
		}
		for _, w := range s.writers {
			if !s.dead[w.rank] {
				moved = w.progress() || moved
			}
		}
	}
}

// verify checks the end state: finished, drained, or explained by a death.
func (s *sim) verify() {
	if s.killAt >= 0 && s.dead[s.victim] {
		// Every live rank left waiting ends with a named timeout error
		// within the timeout; the values that arrived were checked as
		// rounds ended.
		s.timeouts()
		return
	}
	for _, w := range s.writers {
		if !w.done {
			what := "not started"
			if w.role != nil {
				what = w.role.Waiting()
			}
			s.fail("deadlock: writer %d stuck in cycle %d: %s, %d sends", w.rank, w.cycle, what, len(w.sends))
		}
	}
	for _, r := range s.readers {
		if !r.done {
			what := "not started"
			if r.role != nil {
				what = r.role.Waiting()
			}
			s.fail("deadlock: reader %d stuck in cycle %d: %s", r.rank, r.cycle, what)
		}
		for _, m := range r.mail {
			if m.Kind != Verdict {
				s.fail("undrained: reader %d never took %s of %s epoch %d round %d", r.rank, m.Kind, m.Path, m.Epoch, m.Round)
			}
		}
		for _, p := range r.order {
			if !p.done && !p.cancelled {
				s.fail("undrained: reader %d's receive from %d on tag %d never matched", r.rank, p.key.from, p.key.tag)
			}
		}
	}
	for k, q := range s.arrived {
		if len(q) > 0 {
			s.fail("undrained: %d data messages from %d to %d on tag %d never received", len(q), k.from, k.to, k.tag)
		}
	}
	for i, m := range s.matchers {
		if n := m.Sessions(); n != 0 {
			s.fail("matcher %d still holds %d sessions", i, n)
		}
	}
}

// timeoutTicks is the simulation's timeout, in ticks of a waiting rank.
const timeoutTicks = 50

// timeouts ticks every live rank still waiting once nothing else can
// happen: each must end with the role's named timeout error in time.
func (s *sim) timeouts() {
	tick := func(who string, f func(int) error) {
		for range timeoutTicks {
			if err := f(timeoutTicks); err != nil {
				if !strings.Contains(err.Error(), "timed out waiting for") {
					s.fail("%s: timeout error %q does not name what it waited for", who, err)
				}
				s.timedOut++
				return
			}
		}
		s.fail("%s: still waiting after %d ticks, with no timeout error", who, timeoutTicks)
	}
	for _, w := range s.writers {
		if !w.done && !s.dead[w.rank] {
			if !w.started {
				s.fail("writer %d neither done nor waiting", w.rank)
				continue
			}
			tick(fmt.Sprintf("writer %d", w.rank), w.role.Tick)
		}
	}
	for _, r := range s.readers {
		if !r.done && !s.dead[r.world] {
			if !r.started {
				s.fail("reader %d neither done nor waiting", r.rank)
				continue
			}
			tick(fmt.Sprintf("reader %d", r.rank), r.role.Tick)
		}
	}
}

func runSeed(t testing.TB, seed int64) *sim {
	s := newSim(t, seed)
	s.run()
	s.verify()
	return s
}

// TestSimulation runs thousands of seeded simulations; a failing seed is
// printed and replayed with -seed N (and -simlog for its steps).
func TestSimulation(t *testing.T) {
	seeds := corpus(t)
	if *seedFlag >= 0 {
		seeds = []int64{*seedFlag}
	} else {
		n := *seedsFlag
		if raceEnabled && n == 5000 {
			n = 500
		}
		for i := range int64(n) {
			seeds = append(seeds, i)
		}
	}
	hits, rhits, pushed, timeouts, kills, drains, early := 0, 0, 0, 0, 0, 0, 0
	for _, seed := range seeds {
		s := runSeed(t, seed)
		if len(s.errs) > 0 {
			t.Fatalf("seed %d (%d writers, %d readers, %d matchers, %d cycles of %d epochs, patterns %v, early close %d@%d, kill rank %d at step %d) failed; replay with: go test ./dtf/protocol -run TestSimulation -seed %d -simlog\n%s\n%s",
				seed, s.nW, s.nR, s.nM, s.cycles, s.epochs, s.pat, s.earlyAt, s.earlyFrom, s.victim, s.killAt, seed, strings.Join(s.errs, "\n"), strings.Join(s.log, "\n"))
		}
		for _, w := range s.writers {
			hits += w.hits
		}
		for _, r := range s.readers {
			drains += r.drained
			rhits += r.hits
			pushed += r.pushed
		}
		timeouts += s.timedOut
		if s.killAt >= 0 {
			kills++
		}
		if s.earlyFrom >= 0 {
			early++
		}
	}
	t.Logf("%d seeds: %d replayed writer epochs, %d replayed reader rounds, %d rounds served by verdicts alone, %d drained transfers, %d runs with a killed rank (%d ranks timed out), %d with early closes",
		len(seeds), hits, rhits, pushed, drains, kills, timeouts, early)
	if len(seeds) >= 1000 && (hits == 0 || rhits == 0 || pushed == 0 || drains == 0 || kills == 0 || timeouts == 0 || early == 0) {
		t.Errorf("the seeds never reached a case: writer hits %d, reader hits %d, pushed %d, drains %d, kills %d, timeouts %d, early closes %d", hits, rhits, pushed, drains, kills, timeouts, early)
	}
}

// corpus returns the seeds that once failed (testdata/sim-seeds, one a line).
func corpus(t testing.TB) []int64 {
	b, err := os.ReadFile(filepath.Join("testdata", "sim-seeds"))
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatalf("testdata/sim-seeds: %q: %v", l, err)
		}
		out = append(out, n)
	}
	return out
}
