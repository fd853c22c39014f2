package dtf

import (
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/transport"
)

type role int

const (
	roleWriter role = iota + 1
	roleReader
)

func (r role) String() string {
	if r == roleWriter {
		return "writer"
	}
	return "reader"
}

// File is one session of a coupled file in transfer mode: the coupled backend
// of pnetcdf. Puts and gets become request objects; epochs end at Transfer, at
// a reader's blocking get or wait, and at close. File holds what both roles
// share; the writer's session (writerSession, writer.go) or the reader's
// (readerSession, reader.go) holds the rest.
type File struct {
	e       *engine
	path    string
	fc      *config.FileConfig
	session int
	role    role
	group   mpi.Comm // the communicator the file was created or opened on
	me      int      // rank in group
	world   []int    // world rank of each group rank
	peers   []int    // writer group's world ranks (readers learn them from the header)
	fileID  int
	hdr     *nc.Header // the header pnetcdf handed over at EndDef, or the one received
	defs    int        // version of hdr: how many times the writer ended define mode
	part    *matcher.Partition
	epoch   int
	closed  bool

	nextReq  int   // the last nonblocking request id handed out
	bputUsed int64 // bytes of the attached buffer in use (buffered puts)
	bputSize int64 // the attached buffer's size, 0 when none

	// Exactly one of the two session parts is set, by role.
	w *writerSession
	r *readerSession

	st stats.Record
}

// pathHistory carries what outlives one session of a path: how many sessions
// ended, and the last header, so a later session may reopen it for writing.
type pathHistory struct {
	sessions int
	hdr      *nc.Header
}

// Claims reports whether path is coupled by the running configuration, and in
// which mode.
func Claims(path string) (bool, config.FileMode) {
	e, err := current()
	if err != nil {
		return false, ""
	}
	e.noteOpened(path)
	fc, ok := e.cfg.FileFor(path)
	if !ok {
		return false, ""
	}
	return true, fc.Mode
}

// Create starts a writer session of a coupled file on comm (collective).
func Create(comm mpi.Comm, path string, mode int) (*File, error) {
	return begin(comm, path, roleWriter, func(_ *engine, f *File) error {
		f.hdr.Format = nc.FormatOfMode(mode)
		return nil
	})
}

// Open starts a session of a coupled file on comm (collective). Read-only
// opens make this group the reader; its open returns once the writer's header
// has arrived, and inquiry calls answer from that header. Opening with
// NC_WRITE makes the group the writer of a new session over the header of the
// previous one (the roles flip).
func Open(comm mpi.Comm, path string, mode int) (*File, *nc.Header, error) {
	r := roleReader
	if mode&nc.WRITE != 0 {
		r = roleWriter
	}
	f, err := begin(comm, path, r, func(e *engine, f *File) error {
		if r == roleWriter {
			h := e.hist[path]
			if h == nil || h.hdr == nil {
				return nc.Errorf(nc.ENOENT, "coupled file %s has no earlier session to reopen for writing", path)
			}
			f.hdr = h.hdr.Clone()
			f.defs = 1
			return f.publishHeader()
		}
		return f.awaitHeader()
	})
	if err != nil {
		return nil, nil, err
	}
	return f, f.hdr.Clone(), nil
}

// coupled returns the engine and the [FILE] section of a coupled path.
func coupled(path string) (*engine, *config.FileConfig, error) {
	e, err := current()
	if err != nil {
		return nil, nil, err
	}
	fc, ok := e.cfg.FileFor(path)
	if !ok {
		return nil, nil, fmt.Errorf("dtf: %s is not coupled by %s", path, e.cfg.Path)
	}
	return e, fc, nil
}

// history returns what earlier sessions of path left, creating it on first use.
func (e *engine) history(path string) *pathHistory {
	h := e.hist[path]
	if h == nil {
		h = &pathHistory{}
		e.hist[path] = h
	}
	return h
}

func begin(comm mpi.Comm, path string, r role, setup func(*engine, *File) error) (*File, error) {
	e, fc, err := coupled(path)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if old := e.files[path]; old != nil {
		return nil, fmt.Errorf("dtf: %s is already open in this process", path)
	}
	h := e.history(path)
	f := &File{e: e, path: path, fc: fc, session: h.sessions, role: r, group: comm, me: comm.Rank(),
		hdr: &nc.Header{Format: nc.FormatClassic}}
	if r == roleWriter {
		f.w = newWriterSession()
	} else {
		f.r = newReaderSession()
	}
	// Each rank proposes a file slot for the data tags; the group takes
	// rank 0's, which is every rank's when they open files collectively.
	slot, err := e.tags.pickFileSlot(e.nextFileID, e.writtenSlots())
	if err != nil && r == roleWriter {
		return nil, err
	}
	world := make([]int64, 2*comm.Size())
	if err := mpi.Allgather(comm, []int64{int64(e.tr.Rank()), int64(slot)}, world); err != nil {
		return nil, err
	}
	f.world = make([]int, comm.Size())
	for i := range f.world {
		f.world[i] = int(world[2*i])
	}
	if r == roleWriter {
		f.peers = f.world
		f.fileID = int(world[1])
		if e.writtenSlots()[f.fileID] {
			return nil, fmt.Errorf("dtf: %s: file slot %d of the data tags is taken in this process but free at group rank 0 (open coupled files collectively over the group)", path, f.fileID)
		}
		e.nextFileID = f.fileID + 1
	}
	f.resetStats()
	if setup != nil {
		if err := setup(e, f); err != nil {
			return nil, err
		}
	}
	e.files[path] = f
	return f, nil
}

// writtenSlots returns the file slots of the files open for writing.
func (e *engine) writtenSlots() map[int]bool {
	busy := map[int]bool{}
	for _, f := range e.files {
		if f.role == roleWriter {
			busy[f.fileID] = true
		}
	}
	return busy
}

// peerComp returns the component on the other side of this file.
func (f *File) peerComp() int { return f.e.peerOf(f.fc) }

// peerOf returns the component that this process's component is coupled to
// through a [FILE] section.
func (e *engine) peerOf(fc *config.FileConfig) int {
	a, b := e.cfg.CompIndex(fc.Comp1), e.cfg.CompIndex(fc.Comp2)
	if e.comp == a {
		return b
	}
	return a
}

// publishHeader sends the header to every rank of the peer component (the
// writer cannot know which of them will open the file) and fixes the
// partition of the index space among matchers.
func (f *File) publishHeader() error {
	if err := f.setPartition(); err != nil {
		return err
	}
	if f.me != 0 {
		return nil
	}
	b, err := f.hdr.Encode()
	if err != nil {
		return err
	}
	for _, w := range f.e.compRanks[f.peerComp()] {
		m := &envelope{Kind: kHeader, Path: f.path, Session: f.session, Round: f.defs, FileID: f.fileID, Header: b, Ranks: f.world}
		if err := f.e.send(w, m); err != nil {
			return err
		}
	}
	return nil
}

// awaitHeader blocks until the writer's header for this session arrives,
// and takes the newest version that has arrived.
func (f *File) awaitHeader() error {
	e := f.e
	var got *envelope
	err := e.waitFor(func() string {
		return fmt.Sprintf("the header of %s (session %d) from component %q", f.path, f.session, e.cfg.CompNames[f.peerComp()])
	}, func() (bool, error) {
		got = f.newestHeader()
		return got != nil, nil
	})
	if err != nil {
		return err
	}
	return f.applyHeader(got)
}

func (f *File) applyHeader(m *envelope) error {
	h, err := nc.DecodeHeader(m.Header)
	if err != nil {
		return err
	}
	f.hdr, f.fileID, f.defs = h, m.FileID, m.Round
	f.peers = m.Ranks
	return f.setPartition()
}

// setPartition builds the matcher partition from the header; writer and
// readers compute the same one.
func (f *File) setPartition() error {
	mode, err := matcher.ParseMode(string(f.e.cfg.IODBBuildMode))
	if err != nil {
		return err
	}
	n := f.e.cfg.MatcherCount(len(f.peers))
	if mode == matcher.ModeRange && f.e.cfg.IODBRange > 0 {
		f.part, err = matcher.NewRangePartition(n, f.e.cfg.IODBRange) // iodb_range, DTF_VAR_BLOCK_RANGE
	} else {
		f.part, err = matcher.NewPartition(mode, n)
	}
	if err != nil {
		return err
	}
	for v := range f.hdr.Vars {
		shape := f.hdr.Shape(v)
		if f.hdr.IsRecordVar(v) {
			shape[0] = matcher.Unlimited
		}
		if err := f.part.SetShape(v, shape); err != nil {
			return err
		}
	}
	// A redefined header re-cuts the requests of the roles made earlier.
	if f.w != nil && f.w.role != nil {
		f.w.role.SetPartition(f.part)
	}
	if f.r != nil && f.r.role != nil {
		f.r.role.SetPartition(f.part)
	}
	return nil
}

func (f *File) resetStats() {
	f.st = stats.Record{File: f.path, Section: f.fc.Index, Session: f.session, Epoch: f.epoch, Role: f.role.String(),
		Rank: f.me, Comp: f.e.cfg.CompNames[f.e.comp], Replay: stats.Off, Start: time.Now()}
}

// endEpoch writes this epoch's statistics (an epoch that moved nothing, such
// as the close after a final Transfer, leaves no record) and starts the next.
func (f *File) endEpoch(err error) {
	f.st.End = time.Now()
	if err != nil {
		f.st.Error = err.Error()
	}
	if f.st.Requests > 0 || f.st.Bytes > 0 || err != nil {
		f.e.totals.add(&f.st)
		_ = f.e.stats.Write(f.st)
	}
	f.epoch++
	f.resetStats()
}

// lock takes the engine for a data call and serves whatever messages wait,
// at most every callPoll and not while another thread is inside MPI-IO
// (enterIO), so progress happens inside couplet calls. The caller unlocks.
func (f *File) lock() error {
	f.e.mu.Lock()
	if time.Since(f.e.polled) < callPoll || !f.e.enterIO() {
		return nil
	}
	defer mpi.UnlockIO()
	_, err := f.e.poll(false)
	return err
}

// take removes and returns the first parked message of kind for this
// session that also satisfies also (when given).
func (f *File) take(k kind, also func(*envelope) bool) *envelope {
	return f.e.take(func(m *envelope) bool {
		return m.Kind == k && m.Path == f.path && m.Session == f.session && (also == nil || also(m))
	})
}

// progress retires the data sends once all of them finished, with one
// quick look at the transport.
func (f *File) progress() error { return f.retireSends(0) }

// retireSends drives the data sends in the transport for up to budget and
// retires them when all are done.
func (f *File) retireSends(budget time.Duration) error {
	if f.w == nil || len(f.w.dataSends) == 0 {
		return nil
	}
	done, err := transport.Drive(f.e.tr, f.w.dataSends, budget, tagCtl)
	if err != nil {
		return fmt.Errorf("dtf: %s: data transfer: %w", f.path, err)
	}
	if done {
		f.e.inFlight -= len(f.w.dataSends)
		clear(f.w.dataSends)
		f.w.dataSends = f.w.dataSends[:0]
	}
	return nil
}

// ---- define mode ----

func (f *File) writerOnly() error {
	if f.role != roleWriter {
		return nc.EPERM
	}
	return nil
}

// EndDef takes the header that pnetcdf validated and owns, and ships it to
// the readers. After a Redef it ships the redefined header as the session's
// next version; ids of dimensions and variables never change across versions.
func (f *File) EndDef(h *nc.Header) error {
	if err := f.writerOnly(); err != nil {
		return err
	}
	f.e.mu.Lock()
	defer f.e.mu.Unlock()
	h.NumRecs = max(h.NumRecs, f.hdr.NumRecs)
	f.hdr = h
	f.defs++
	return f.publishHeader()
}

// Redef re-enters define mode; the header stays pnetcdf's until EndDef.
func (f *File) Redef() error { return f.writerOnly() }

// Header returns the writer's newest header when a later EndDef than the one
// this reader holds has reached it, and nil otherwise. The writer's root
// sends each version before its next epoch ends, and every read round hears
// from that rank (matcher 0), so after a get or wait a reader holds every
// version the writer ended define mode with before that epoch's end.
func (f *File) Header() (*nc.Header, error) {
	if f.role != roleReader {
		return nil, nil
	}
	defer f.e.mu.Unlock()
	if err := f.lock(); err != nil {
		return nil, err
	}
	m := f.newestHeader()
	if m == nil {
		return nil, nil
	}
	recs := f.hdr.NumRecs
	if err := f.applyHeader(m); err != nil {
		return nil, err
	}
	f.hdr.NumRecs = max(f.hdr.NumRecs, recs)
	return f.hdr.Clone(), nil
}

// newestHeader removes the parked headers of this session newer than the one
// held, and returns the newest of them (nil if none).
func (f *File) newestHeader() *envelope {
	var newest *envelope
	for {
		m := f.take(kHeader, func(m *envelope) bool { return m.Round > f.defs })
		if m == nil {
			return newest
		}
		if newest == nil || m.Round > newest.Round {
			newest = m
		}
	}
}

// fills reports whether unwritten elements of variable varid read as its fill
// value, as in a PnetCDF file: a fixed-size variable in fill mode is filled
// at enddef; record variables are never filled by themselves.
func (f *File) fills(varid int) bool {
	return !f.hdr.Vars[varid].NoFill && !f.hdr.IsRecordVar(varid)
}

// BeginIndep is a no-op: coupled requests are independent by nature.
func (f *File) BeginIndep() error { return nil }

// EndIndep is a no-op.
func (f *File) EndIndep() error { return nil }

// Sync is a no-op: there is no file to flush.
func (f *File) Sync() error { return nil }

// NumRecs reports the record count: the writer's own, or on a reader the
// writers' count for the current epoch, which a reader learns from matcher 0
// once the writers have ended the epoch (its data cannot arrive earlier).
func (f *File) NumRecs() (int64, error) {
	if f.role == roleWriter || f.r.recsEpoch == f.epoch+1 {
		return f.hdr.NumRecs, nil
	}
	e := f.e
	e.mu.Lock()
	defer e.mu.Unlock()
	q := &envelope{Kind: kRecsQuery, Path: f.path, Session: f.session, Epoch: f.epoch, Ranks: []int{f.me, len(f.world)}}
	if err := e.send(f.peers[0], q); err != nil {
		return 0, err
	}
	err := e.waitFor(func() string {
		return fmt.Sprintf("the record count of %s (epoch %d) from the writers", f.path, f.epoch)
	}, func() (bool, error) {
		m := f.take(kRecs, func(m *envelope) bool { return m.Epoch == f.epoch })
		if m != nil {
			f.hdr.NumRecs = max(f.hdr.NumRecs, m.NumRecs)
			f.r.recsEpoch = f.epoch + 1
		}
		return m != nil, nil
	})
	return f.hdr.NumRecs, err
}

// fillValue returns a variable's fill value in its own type.
func (f *File) fillValue(varid int) []byte {
	v := &f.hdr.Vars[varid]
	for _, a := range v.Atts {
		if a.Name == "_FillValue" && a.Type == v.Type && len(a.Data) == v.Type.Size() {
			return a.Data
		}
	}
	return nc.FillBytes(v.Type)
}
