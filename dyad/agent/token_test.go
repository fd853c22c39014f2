package agent

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRequireTokenOffLoopback(t *testing.T) {
	for _, c := range []struct {
		addr     string
		explicit bool
		ok       bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:0", false, true},
		{"localhost:9000", false, true},
		{"0.0.0.0:0", false, false},
		{"10.1.2.3:7000", false, false},
		{"node12:7000", false, false},
		{"0.0.0.0:0", true, true},
		{"nonsense", true, false},
	} {
		err := requireTokenOffLoopback(c.addr, c.explicit)
		if (err == nil) != c.ok {
			t.Errorf("requireTokenOffLoopback(%q, %v) = %v, want ok=%v", c.addr, c.explicit, err, c.ok)
		}
	}
}

// TestShortTokenRefused starts agents whose token, given or read from a file, is one byte
// short of MinTokenLen (refused with the length in the error, before any socket is
// claimed) or just long enough (started).
func TestShortTokenRefused(t *testing.T) {
	short, enough := strings.Repeat("k", MinTokenLen-1), strings.Repeat("k", MinTokenLen)
	file := func(tok string) string {
		p := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name    string
		o       Options
		wantErr string
	}{
		{"given, short", Options{Token: short}, "the token given has 15 bytes; a cluster token needs at least 16"},
		{"file, short", Options{TokenFile: file(short)}, "has 15 bytes; a cluster token needs at least 16"},
		{"given", Options{Token: enough}, ""},
		{"file", Options{TokenFile: file(enough)}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.o.ProducerDir, c.o.Socket, c.o.LogWriter = filepath.Join(dir, "managed"), filepath.Join(dir, "a.sock"), io.Discard
			a, err := Start(c.o)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				a.Close()
				return
			}
			if err == nil {
				a.Close()
				t.Fatalf("Start succeeded, want %q", c.wantErr)
			}
			if !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Start: %v, want %q", err, c.wantErr)
			}
			if _, err := os.Stat(c.o.Socket); !os.IsNotExist(err) {
				t.Errorf("socket %s left behind (stat: %v)", c.o.Socket, err)
			}
		})
	}
}
