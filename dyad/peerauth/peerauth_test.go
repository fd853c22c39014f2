package peerauth

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// record wraps a conn and keeps every byte written through it.
type record struct {
	net.Conn
	buf *bytes.Buffer
}

func (r record) Write(p []byte) (int, error) { r.buf.Write(p); return r.Conn.Write(p) }

func TestHandshake(t *testing.T) {
	for _, c := range []struct {
		name               string
		server, client     string
		serverOK, clientOK bool
	}{
		{"same token", "s3cret-token", "s3cret-token", true, true},
		{"wrong token", "s3cret-token", "guess", false, false},
		{"prefix", "s3cret-token", "s3cret", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := net.Pipe()
			var wire bytes.Buffer
			serr := make(chan error, 1)
			go func() {
				err := Server(record{a, &wire}, []byte(c.server), time.Second)
				if err != nil {
					a.Close()
				}
				serr <- err
			}()
			cerr := Client(record{b, &wire}, []byte(c.client), time.Second)
			b.Close()
			se := <-serr
			if (se == nil) != c.serverOK || (cerr == nil) != c.clientOK {
				t.Fatalf("server err %v, client err %v; want ok %v/%v", se, cerr, c.serverOK, c.clientOK)
			}
			if !c.serverOK && !errors.Is(se, ErrUnauthorized) {
				t.Errorf("server error %v does not wrap ErrUnauthorized", se)
			}
			for _, tok := range []string{c.server, c.client} {
				if bytes.Contains(wire.Bytes(), []byte(tok)) {
					t.Errorf("token %q appears on the wire", tok)
				}
			}
		})
	}
}

// TestClientOfLegacyServer: a server that does not challenge is refused, not hung on.
func TestClientOfLegacyServer(t *testing.T) {
	a, b := net.Pipe()
	go func() {
		a.Write([]byte("\x00\x00\x00\x05hello-and-more-bytes-than-the-magic-plus-nonce...."))
		io.Copy(io.Discard, a)
	}()
	if err := Client(b, []byte("t"), time.Second); err == nil {
		t.Fatal("client accepted a server without a challenge")
	}
	b.Close()
}
