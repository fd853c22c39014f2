package agent

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/ofd"
)

// A staging fills a temporary file beside its destination (and one beside its sidecar,
// where the file system keeps no extended attributes for its record), and holds each
// file's OFD lock until the file is renamed into place or removed (createTemp,
// download.commit, writeAtomic). A staging that an agent crash cut
// short leaves its temporary files behind, unlocked. The first time an agent stages into
// a directory it sweeps that directory once, in the background: a temporary file that
// nobody holds and that is older than the agent's start is a crashed staging's, and
// goes. A live staging's file, of this agent or of another one staging into the same
// directory, is locked; a file created after this agent started is never taken, so the
// instant between a file's creation and its lock does not matter.

// sweptDirs is the set of directories an agent has swept, forgotten whole once it holds
// max of them: an agent that stages into a new directory every step would otherwise
// grow it for its lifetime. A directory forgotten is swept again at its next staging:
// one more directory read, and a live staging's files are locked, so never taken.
type sweptDirs struct {
	mu  sync.Mutex
	m   map[string]struct{}
	max int
}

// first records dir and says whether it was not recorded yet.
func (s *sweptDirs) first(dir string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.m[dir]; seen {
		return false
	}
	if s.m == nil || len(s.m) >= s.max {
		s.m = map[string]struct{}{}
	}
	s.m[dir] = struct{}{}
	return true
}

// maxSweptDirs is how many swept directories an agent remembers.
const maxSweptDirs = 1 << 16

// sweepOnce starts the sweep of dir unless this agent already swept it.
func (a *Agent) sweepOnce(dir string) {
	if !a.swept.first(dir) {
		return
	}
	go func() {
		if n := sweepTemps(dir, a.started); n > 0 {
			a.ctr.staleTemps.Add(int64(n))
			a.info.Printf("removed %d temporary files of stagings cut short in %s", n, dir)
		}
	}()
}

// sweepTemps removes the temporary files of stagings in dir that nobody holds and that
// were last written before before, and returns how many it removed.
func sweepTemps(dir string, before time.Time) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), dyad.TempPrefix) && e.Type().IsRegular() && removeStale(filepath.Join(dir, e.Name()), before) {
			n++
		}
	}
	return n
}

// removeStale removes the file p if it is a regular file last written before before
// whose lock it can take, and says whether it did.
func removeStale(p string, before time.Time) bool {
	// Write access for the write lock; never through a symbolic link.
	f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || !st.ModTime().Before(before) {
		return false
	}
	if got, err := ofd.TryLock(f, true); err != nil || !got {
		return false
	}
	// p must still name the file locked, not one put in its place meanwhile.
	if now, err := os.Lstat(p); err != nil || !os.SameFile(now, st) {
		return false
	}
	return os.Remove(p) == nil
}
