package etcdtest

import (
	"net"
	"strconv"
	"testing"
)

// TestStableAddr: every address drawn is a loopback port below the ephemeral range that
// a server can listen on.
func TestStableAddr(t *testing.T) {
	hi := ephemeralLow()
	for range 50 {
		addr := StableAddr(t)
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := strconv.Atoi(port)
		if host != "127.0.0.1" || p < stableLow || p >= hi {
			t.Fatalf("StableAddr = %s, want 127.0.0.1 with a port in [%d, %d)", addr, stableLow, hi)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen on %s: %v", addr, err)
		}
		l.Close()
	}
}
