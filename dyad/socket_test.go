package dyad

import (
	"strings"
	"testing"
)

// TestSocketFor checks each step of the socket rule with exact paths; the C libraries
// derive the same paths.
func TestSocketFor(t *testing.T) {
	long := "/scratch/" + strings.Repeat("d", 90) // 99 bytes: its socket path is 120
	cases := []struct {
		name, dir string
		env       map[string]string
		want      string
	}{
		{"explicit", "/data/prod", map[string]string{SocketEnv: "/run/x.sock"}, "/run/x.sock"},
		{"managed dir", "/data/prod", nil, "/data/prod/.couplet/agent.sock"},
		{"cleaned", "/data//prod/./sub/..", nil, "/data/prod/.couplet/agent.sock"},
		{"long, xdg", long, map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, "/run/user/1000/couplet/" + fnvHex(long) + ".sock"},
		{"long, no xdg", long, nil, "/tmp/couplet-1000/" + fnvHex(long) + ".sock"},
		// 107 bytes in all: the longest path that still fits.
		{"107 bytes", "/" + strings.Repeat("e", 86), nil, "/" + strings.Repeat("e", 86) + "/.couplet/agent.sock"},
		{"108 bytes", "/" + strings.Repeat("e", 87), nil, "/tmp/couplet-1000/" + fnvHex("/"+strings.Repeat("e", 87)) + ".sock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := socketFor(c.dir, func(k string) string { return c.env[k] }, 1000)
			if err != nil || got != c.want {
				t.Fatalf("socketFor(%q) = %q, %v; want %q", c.dir, got, err, c.want)
			}
		})
	}
	// FNV-1a 64 of a known string (offset basis cbf29ce484222325, prime 100000001b3).
	if h := fnvHex("/data/prod"); len(h) != 16 || h != "f7e3490ea5d5a3ea" {
		t.Errorf("fnv-1a 64 of /data/prod = %s", h)
	}
	if _, err := socketFor("", func(string) string { return "" }, 0); err == nil {
		t.Error("no directory and no variable: want an error")
	}
}
