package agent

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// TokenFileName is the token an agent generates in its state directory when given none.
const TokenFileName = "token"

// MinTokenLen is the shortest token an agent accepts, in bytes. A peer's challenge
// response is an HMAC under the token, so whoever records one can guess a short token
// offline; and Go's FIPS 140-only mode refuses HMAC keys under 112 bits (it panics). A
// generated token has 64.
const MinTokenLen = 16

// LoadToken reads the token in path (surrounding white space trimmed). It refuses a
// file that group or others may read or write: the token is the cluster's only secret.
func LoadToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("agent: token file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("agent: token file: %w", err)
	}
	if m := st.Mode(); !m.IsRegular() || m.Perm()&0o077 != 0 {
		return "", fmt.Errorf("agent: token file %s has mode %v; it must be a regular file only its owner can read (chmod 600)", path, m)
	}
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	tok := strings.TrimSpace(string(b[:n]))
	if tok == "" {
		return "", fmt.Errorf("agent: token file %s is empty", path)
	}
	return tok, nil
}

// resolveToken settles the token: the one given, else the token file given, else the
// one in the state directory, generated (0600) on first use. Every listener requires it,
// loopback too, since any local user can reach a loopback port.
func (a *Agent) resolveToken() error {
	o := &a.opts
	explicit := o.Token != "" || o.TokenFile != ""
	if err := requireTokenOffLoopback(o.Listen, explicit); err != nil {
		return err
	}
	switch {
	case o.Token != "":
		return checkTokenLen(o.Token, "the token given")
	case o.TokenFile != "":
		tok, err := LoadToken(o.TokenFile)
		if err != nil {
			return err
		}
		o.Token = tok
		return checkTokenLen(tok, "the token in "+o.TokenFile)
	}
	p := filepath.Join(o.StateDir, TokenFileName)
	if tok, err := LoadToken(p); err == nil {
		o.Token = tok
		return checkTokenLen(tok, "the token in "+p)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	b := make([]byte, 32)
	rand.Read(b)
	tok := hex.EncodeToString(b)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("agent: generate token: %w", err)
	}
	_, err = f.WriteString(tok + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return fmt.Errorf("agent: generate token: %w", err)
	}
	o.Token = tok
	o.TokenFile = p
	return nil
}

// checkTokenLen refuses a token shorter than MinTokenLen; what names where it came from.
func checkTokenLen(tok, what string) error {
	if len(tok) < MinTokenLen {
		return fmt.Errorf("agent: %s has %d bytes; a cluster token needs at least %d (for one, `head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'`)", what, len(tok), MinTokenLen)
	}
	return nil
}

// TokenFile returns the file the agent's token came from ("" when given directly): other
// agents of the same user on this node join with --token-file pointing at it.
func (a *Agent) TokenFile() string { return a.opts.TokenFile }

// requireTokenOffLoopback refuses a non-loopback listener without an explicit token: a
// generated one is unknown to the other nodes.
func requireTokenOffLoopback(addr string, explicit bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("agent: bad listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
		return nil
	}
	if !explicit {
		return fmt.Errorf("agent: listening on non-loopback address %q requires a token (--token-file or COUPLET_AGENT_TOKEN)", addr)
	}
	return nil
}
