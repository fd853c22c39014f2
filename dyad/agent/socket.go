package agent

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"golang.org/x/sys/unix"
)

// ErrRunning is wrapped by Start's error when another agent already serves the socket.
var ErrRunning = errors.New("agent already running")

// localSocket is the agent's Unix socket and the lock that makes it this agent's.
type localSocket struct {
	path string
	lock *os.File
	l    net.Listener
}

// claimSocket makes path this agent's socket. An flock on path+".lock", held for the
// agent's life, keeps two agents starting at once from both taking it; a socket that
// still answers is refused too (an agent that holds no lock); a socket nobody answers
// on is the stale one of a killed agent and is replaced. Nothing else is ever removed.
func claimSocket(path string) (*localSocket, error) {
	if err := dyad.PrepareSocketDir(path); err != nil {
		return nil, err
	}
	lf, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("agent: socket lock: %w", err)
	}
	s := &localSocket{path: path, lock: lf}
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lf.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w at %s", ErrRunning, path)
		}
		return nil, fmt.Errorf("agent: socket lock %s.lock: %w", path, err)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			s.release()
			return nil, fmt.Errorf("agent: %s exists and is not a socket; not replacing it", path)
		}
		if c, err := net.DialTimeout("unix", path, 2*time.Second); err == nil {
			c.Close()
			s.release()
			return nil, fmt.Errorf("%w at %s", ErrRunning, path)
		}
		os.Remove(path) // nothing answers: the socket of a killed agent
	}
	if s.l, err = net.Listen("unix", path); err != nil {
		s.release()
		return nil, fmt.Errorf("agent: listen on %s: %w", path, err)
	}
	// The listener must not unlink the path on Close: release does, while it holds the lock.
	s.l.(*net.UnixListener).SetUnlinkOnClose(false)
	os.Chmod(path, 0o600)
	return s, nil
}

// close stops listening, removes the socket and releases the lock.
func (s *localSocket) close() {
	if s.l != nil {
		s.l.Close()
		os.Remove(s.path)
	}
	s.release()
}

func (s *localSocket) release() {
	unix.Flock(int(s.lock.Fd()), unix.LOCK_UN)
	s.lock.Close()
}
