package dyad

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
)

// SocketEnv names the variable that sets the agent's Unix socket for agents and clients.
const SocketEnv = "COUPLET_AGENT_SOCKET"

// maxSocketPath is the size of sun_path on Linux: a socket path must be shorter.
const maxSocketPath = 108

// SocketFor returns the agent socket of the managed directory dir, by the rule the agent,
// the Go clients and the C libraries share:
//
//  1. $COUPLET_AGENT_SOCKET, if set and not empty;
//  2. else <abs>/.couplet/agent.sock, where abs is dir made absolute against the working
//     directory and cleaned lexically (symlinks are not resolved);
//  3. if that path is 108 bytes or longer (too long for a Unix socket),
//     $XDG_RUNTIME_DIR/couplet/<h>.sock, or /tmp/couplet-<uid>/<h>.sock without
//     XDG_RUNTIME_DIR, where h is the FNV-1a 64 hash of abs in 16 lowercase hex digits.
//
// The directory of a rule-3 socket is created with mode 0700. A client uses its consumer
// directory when consuming and its producer directory when producing.
func SocketFor(dir string) (string, error) {
	return socketFor(dir, os.Getenv, os.Getuid())
}

func socketFor(dir string, getenv func(string) string, uid int) (string, error) {
	if s := getenv(SocketEnv); s != "" {
		return s, nil
	}
	if dir == "" {
		return "", fmt.Errorf("dyad: no managed directory to derive the agent socket from (set %s or a managed directory)", SocketEnv)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("dyad: agent socket for %s: %w", dir, err)
	}
	p := filepath.Join(abs, stateDir, "agent.sock")
	if len(p) < maxSocketPath {
		return p, nil
	}
	name := fnvHex(abs) + ".sock"
	base := filepath.Join("/tmp", "couplet-"+strconv.Itoa(uid))
	if x := getenv("XDG_RUNTIME_DIR"); x != "" {
		base = filepath.Join(x, "couplet")
	}
	return filepath.Join(base, name), nil
}

// PrepareSocketDir creates the directory of socket: mode 0700 for a socket outside a
// managed directory (rule 3 of SocketFor), so no other user can reach or replace it.
func PrepareSocketDir(socket string) error {
	d := filepath.Dir(socket)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("dyad: socket directory: %w", err)
	}
	return nil
}

// fnvHex is the FNV-1a 64 hash of s in 16 lowercase hex digits.
func fnvHex(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%016x", h.Sum64())
}
