package dtf

import (
	"fmt"
	"maps"
	"slices"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
)

// Transfer ends the current epoch of the coupled file path, in both
// components: every put before it satisfies the gets before it. On a reader
// it returns once every buffer holds its data; on a writer once every reader
// finished the epoch, after which the writer may reuse its buffers.
func Transfer(path string) error {
	e, err := current()
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.files[path]
	if f == nil {
		return fmt.Errorf("dtf: Transfer: %s is not an open coupled file", path)
	}
	return f.transfer()
}

func (f *File) transfer() error {
	f.e.explicit[f.fc.Index] = true
	if f.role == roleWriter {
		return f.endWriterEpoch(false, false)
	}
	return f.readRound(f.pendingGets(), true, false, true)
}

// TransferAll ends the epoch of every open coupled file, in path order; both
// components must have the same files open.
func TransferAll() error {
	e, err := current()
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	paths := slices.Sorted(maps.Keys(e.files))
	for _, p := range paths {
		if err := e.files[p].transfer(); err != nil {
			return err
		}
	}
	return nil
}

// Close ends the session. A writer's close ends its last epoch and returns
// once every reader has closed; a reader's close tells the matchers it is
// gone, so the writer need not wait for reads that will never come.
func (f *File) Close() error {
	e := f.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if f.closed {
		return nc.EBADID
	}
	var err error
	if f.role == roleWriter {
		err = f.endWriterEpoch(true, false)
		if f.me == 0 {
			// Every reader has closed; ranks of the peer component that
			// never opened this session still hold its header. The readers
			// dropped it at their close, and may have left already: a
			// message to them would stay unreceived, which UCX reports
			// at their finalize.
			for _, w := range e.compRanks[f.peerComp()] {
				if !f.w.role.Gone(w) {
					e.sendAdvisory(w, &envelope{Kind: kForget, Path: f.path, Session: f.session})
				}
			}
		}
	} else {
		err = f.readRound(f.pendingGets(), true, true, true)
	}
	f.closed = true
	delete(e.files, f.path)
	e.endSession(f.path, f.fc, f.hdr)
	return err
}

// endSession counts a finished session of path and frees the path's state
// once it has had num_sessions sessions, so a file per cycle costs nothing
// after its cycle.
func (e *engine) endSession(path string, fc *config.FileConfig, hdr *nc.Header) {
	h := e.hist[path]
	h.sessions++
	h.hdr = hdr
	e.dropMail(path, func(s int) bool { return s < h.sessions })
	if h.sessions >= max(1, fc.NumSessions) {
		delete(e.hist, path)
	}
}

// dropMail forgets the parked messages of path that drop accepts: headers of
// sessions that ended, or that were meant for ranks that never opened them.
func (e *engine) dropMail(path string, drop func(session int) bool) {
	kept := e.mail[:0]
	for _, m := range e.mail {
		if m.Path != path || !drop(m.Session) {
			kept = append(kept, m)
		}
	}
	clear(e.mail[len(kept):])
	e.mail = kept
}

// FileSession is one session of a file coupled in file mode: real files on
// disk, with dtf only ordering the reader's open after the writer's close.
type FileSession struct {
	e       *engine
	path    string
	fc      *config.FileConfig
	group   mpi.Comm
	writer  bool
	session int
	peer    int
}

// BeginFileSession starts a file-mode session on comm. A writer (create, or
// open for writing) proceeds at once; a reader blocks until the writer of
// this session has closed the file.
func BeginFileSession(comm mpi.Comm, path string, writer bool) (*FileSession, error) {
	e, fc, err := coupled(path)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.history(path)
	s := &FileSession{e: e, path: path, fc: fc, group: comm, writer: writer, session: h.sessions, peer: e.peerOf(fc)}
	if writer {
		return s, nil
	}
	err = e.waitFor(func() string {
		return fmt.Sprintf("component %q to close %s (session %d)", e.cfg.CompNames[s.peer], path, s.session)
	}, func() (bool, error) {
		m := e.take(func(m *envelope) bool { return m.Kind == kClosed && m.Path == path && m.Session == s.session })
		return m != nil, nil
	})
	return s, err
}

// End finishes the session after the file was closed on disk; a writer tells
// every rank of the peer component that the file is complete.
func (s *FileSession) End() error {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	e.endSession(s.path, s.fc, nil)
	if !s.writer || s.group.Rank() != 0 {
		return nil
	}
	for _, w := range e.compRanks[s.peer] {
		if err := e.send(w, &envelope{Kind: kClosed, Path: s.path, Session: s.session}); err != nil {
			return err
		}
	}
	return e.waitSends()
}

// TransferMultiple ends the writer's current epoch of path as a multiple
// epoch (DTF's dtf_transfer_multiple): it serves every transfer the readers
// make, each a round of that epoch, and returns once every reader rank has
// called CompleteMultiple or closed the file, or with a timeout error.
func TransferMultiple(path string) error {
	f, unlock, err := openFile(path, "TransferMultiple", roleWriter)
	if err != nil {
		return err
	}
	defer unlock()
	f.e.explicit[f.fc.Index] = true
	return f.endWriterEpoch(false, true)
}

// CompleteMultiple ends, on a reader, the writer's multiple epoch of path
// (DTF's dtf_complete_multiple): gets still pending are served first, as by
// a Transfer, and then every matcher hears that this rank is done. It is an
// error when the writer's epoch is not a multiple one.
func CompleteMultiple(path string) error {
	f, unlock, err := openFile(path, "CompleteMultiple", roleReader)
	if err != nil {
		return err
	}
	defer unlock()
	f.e.explicit[f.fc.Index] = true
	if gets := f.pendingGets(); len(gets) > 0 {
		if err := f.readRound(gets, true, false, true); err != nil {
			return err
		}
	}
	rd, err := f.readerRole().CompleteMultiple()
	if err != nil {
		return err
	}
	for _, s := range rd.Sends {
		if err := f.e.send(s.To, s.Msg); err != nil {
			return err
		}
		f.st.MsgsSent++
	}
	f.endEpoch(nil)
	return nil
}

// openFile returns the open coupled file path with the engine locked, checking
// that this process plays role r in it; the caller runs unlock.
func openFile(path, call string, r role) (*File, func(), error) {
	e, err := current()
	if err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	f := e.files[path]
	switch {
	case f == nil:
		err = fmt.Errorf("dtf: %s: %s is not an open coupled file", call, path)
	case f.role != r:
		err = fmt.Errorf("dtf: %s: this component is the %s of %s; only its %s may call it", call, f.role, path, r)
	}
	if err != nil {
		e.mu.Unlock()
		return nil, nil, err
	}
	return f, e.mu.Unlock, nil
}
