package agent

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

func shortTemp(t *testing.T) string {
	d, err := os.MkdirTemp("", "ags")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// answers reports whether an agent serves stats on socket.
func answers(socket string) error {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := wire.Write(c, &wire.Msg{Op: wire.OpStats}); err != nil {
		return err
	}
	m, err := wire.Read(c)
	if err != nil {
		return err
	}
	if m.Op != wire.OpEnd || m.Counters == nil {
		return errors.New("no counters in the reply")
	}
	return nil
}

// TestSecondAgentSameSocket gives two agents the same socket: the second is refused with
// ErrRunning and the first still answers there, also after the second gave up.
func TestSecondAgentSameSocket(t *testing.T) {
	tmp := shortTemp(t)
	sock := filepath.Join(tmp, "a.sock")
	first, err := Start(Options{ProducerDir: filepath.Join(tmp, "one"), Socket: sock, LogWriter: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Start(Options{ProducerDir: filepath.Join(tmp, "two"), Socket: sock, KVS: first.KVSEndpoint(), LogWriter: &bytes.Buffer{}})
	if err == nil {
		second.Close()
		t.Fatal("a second agent started on the first one's socket")
	}
	if !errors.Is(err, ErrRunning) || err.Error() != "agent already running at "+sock {
		t.Fatalf("second agent: %v", err)
	}
	if err := answers(sock); err != nil {
		t.Fatalf("the first agent no longer answers: %v", err)
	}
}

// TestStaleSocketReplaced starts an agent where a killed agent left its socket file
// (nothing answers on it): the agent takes it over. A path that is not a socket is left
// alone and refused.
func TestStaleSocketReplaced(t *testing.T) {
	tmp := shortTemp(t)
	sock := filepath.Join(tmp, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Stat(sock); err != nil {
		t.Fatal(err)
	}
	a, err := Start(Options{ProducerDir: filepath.Join(tmp, "p"), Socket: sock, LogWriter: &bytes.Buffer{}})
	if err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	if err := answers(sock); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left after Close: %v", err)
	}
	notSock := filepath.Join(tmp, "plain")
	os.WriteFile(notSock, []byte("keep me"), 0o644)
	_, err = Start(Options{ProducerDir: filepath.Join(tmp, "q"), Socket: notSock, LogWriter: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Fatalf("regular file as socket: %v", err)
	}
	if b, _ := os.ReadFile(notSock); string(b) != "keep me" {
		t.Error("the regular file was touched")
	}
}
