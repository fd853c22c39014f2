package dyad_test

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/couplet-hpc/couplet/dyad/agent"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// tap is a TCP proxy that records every byte it forwards, both ways.
type tap struct {
	l   net.Listener
	mu  sync.Mutex
	buf bytes.Buffer
}

func newTap(t *testing.T, target string) *tap {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tap{l: l}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			pipe := func(dst, src net.Conn) {
				io.Copy(io.MultiWriter(dst, p), src)
				dst.Close()
				src.Close()
			}
			go pipe(s, c)
			go pipe(c, s)
		}
	}()
	return p
}

func (p *tap) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.Write(b)
}

func (p *tap) bytes() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.buf.Bytes())
}

// TestTokenNotOnTheWire stages a file through a proxy that records the rpc DTL: the file
// crosses it, the token never does.
func TestTokenNotOnTheWire(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := lis.Addr().String()
	lis.Close()
	var p *tap
	prod := startNode(t, "", func(o *agent.Options) {
		o.Listen = listen
		p = newTap(t, listen)
		o.Advertise = p.l.Addr().String()
	})
	cons := startNode(t, prod.agent.KVSEndpoint(), func(o *agent.Options) { o.DTL = "rpc" })
	data := randBytes(1<<20, 41)
	produce(t, prod, "w.bin", data)
	consumeCheck(t, cons, "w.bin", data)
	got := p.bytes()
	if !bytes.Contains(got, data[:4096]) {
		t.Fatalf("the capture (%d bytes) does not hold the file: the test tapped the wrong link", len(got))
	}
	if bytes.Contains(got, []byte(testToken)) {
		t.Error("the token crossed the rpc DTL in clear")
	}
}

// TestLoopbackFetchNeedsCredentials: an agent given no token generates one (0600, in its
// state directory) and refuses a loopback fetch without it, so a local user cannot read
// through the agent a 0600 file it cannot read itself.
func TestLoopbackFetchNeedsCredentials(t *testing.T) {
	prod := startNode(t, "", func(o *agent.Options) { o.Token = "" })
	secret := filepath.Join(prod.dir, "secret.bin")
	os.WriteFile(secret, []byte("0600 content"), 0o600)
	tf := prod.agent.TokenFile()
	st, err := os.Stat(tf)
	if err != nil {
		t.Fatalf("generated token file: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	for _, tok := range []string{"", "guess"} {
		if m := rawFetch(t, prod.agent.Addr(), tok, "secret.bin"); m.Op != wire.OpError || !strings.Contains(m.Err, "unauthorized") {
			t.Errorf("fetch with token %q: %v %q, want unauthorized", tok, m.Op, m.Err)
		}
	}
	tok, err := agent.LoadToken(tf)
	if err != nil {
		t.Fatal(err)
	}
	if m := rawFetch(t, prod.agent.Addr(), tok, "secret.bin"); m.Op != wire.OpHeader {
		t.Errorf("fetch with the generated token: %v %q", m.Op, m.Err)
	}
	// Another local user can neither read the token nor fetch without it.
	os.Chmod(filepath.Dir(filepath.Dir(prod.dir)), 0o755)
	os.Chmod(filepath.Dir(prod.dir), 0o755)
	if out, err := asNobody(t, "cat", tf).CombinedOutput(); err == nil {
		t.Errorf("uid 65534 read the token file: %s", out)
	}
	fetch := `import socket,sys
h,p=sys.argv[1].rsplit(":",1); s=socket.create_connection((h,int(p)))
ch=s.recv(37); s.sendall(b"\0"*64)
print(repr(s.recv(4096)))`
	out, err := asNobody(t, "/usr/bin/python3", "-c", fetch, prod.agent.Addr()).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "b''" {
		t.Errorf("an unauthenticated local user got %s from the agent, want nothing", out)
	}
}
