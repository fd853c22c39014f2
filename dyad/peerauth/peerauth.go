// Package peerauth is the mutual challenge-response that opens every connection of the
// rpc DTL between agents. Both ends prove that they hold the cluster token without ever
// sending it: each sends a fresh random nonce, and each answers with an HMAC-SHA256 of
// both nonces under the token, tagged with its role, so no answer can be replayed or
// reflected. It wraps a connection before the data path and knows nothing of it.
//
// The exchange, after the server's accept:
//
//	server -> client  "CPLA1" || Ns (32 bytes)
//	client -> server  Nc (32 bytes) || HMAC(token, "client" || Ns || Nc)
//	server -> client  HMAC(token, "server" || Ns || Nc)
package peerauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

const (
	magic    = "CPLA1"
	nonceLen = 32
	macLen   = sha256.Size
)

// ErrUnauthorized is wrapped when the other end does not prove it holds the token.
var ErrUnauthorized = errors.New("unauthorized: the peer did not prove it holds the cluster token")

func mac(token []byte, role string, ns, nc []byte) []byte {
	h := hmac.New(sha256.New, token)
	h.Write([]byte(role))
	h.Write(ns)
	h.Write(nc)
	return h.Sum(nil)
}

// Server runs the server's side on c within timeout (0: no limit). On success the
// client has proven it holds token, and it is told that the server does too.
func Server(c net.Conn, token []byte, timeout time.Duration) error {
	if len(token) == 0 {
		return errors.New("peerauth: empty token")
	}
	if timeout > 0 {
		c.SetDeadline(time.Now().Add(timeout))
		defer c.SetDeadline(time.Time{})
	}
	ns := make([]byte, nonceLen)
	rand.Read(ns)
	if _, err := c.Write(append([]byte(magic), ns...)); err != nil {
		return fmt.Errorf("peerauth: challenge: %w", err)
	}
	var in [nonceLen + macLen]byte
	if _, err := io.ReadFull(c, in[:]); err != nil {
		return fmt.Errorf("peerauth: answer: %w", err)
	}
	nc := in[:nonceLen]
	if !hmac.Equal(in[nonceLen:], mac(token, "client", ns, nc)) {
		return fmt.Errorf("peerauth: %w", ErrUnauthorized)
	}
	if _, err := c.Write(mac(token, "server", ns, nc)); err != nil {
		return fmt.Errorf("peerauth: proof: %w", err)
	}
	return nil
}

// Client runs the client's side on c within timeout (0: no limit). On success the
// server has proven it holds token.
func Client(c net.Conn, token []byte, timeout time.Duration) error {
	if len(token) == 0 {
		return errors.New("peerauth: empty token")
	}
	if timeout > 0 {
		c.SetDeadline(time.Now().Add(timeout))
		defer c.SetDeadline(time.Time{})
	}
	var ch [len(magic) + nonceLen]byte
	if _, err := io.ReadFull(c, ch[:]); err != nil {
		return fmt.Errorf("peerauth: no challenge from the server: %w", err)
	}
	if string(ch[:len(magic)]) != magic {
		return fmt.Errorf("peerauth: the server did not open with a challenge (an agent without authentication?)")
	}
	ns := ch[len(magic):]
	nc := make([]byte, nonceLen)
	rand.Read(nc)
	if _, err := c.Write(append(nc, mac(token, "client", ns, nc)...)); err != nil {
		return fmt.Errorf("peerauth: answer: %w", err)
	}
	var proof [macLen]byte
	if _, err := io.ReadFull(c, proof[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("peerauth: the server refused our answer (wrong token?): %w", ErrUnauthorized)
		}
		return fmt.Errorf("peerauth: proof: %w", err)
	}
	if !hmac.Equal(proof[:], mac(token, "server", ns, nc)) {
		return fmt.Errorf("peerauth: server: %w", ErrUnauthorized)
	}
	return nil
}
