package etcdtest

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// StableAddr returns a loopback "host:port" for a server that a test starts, kills and
// starts again on the same port (an external etcd, a node agent in a subprocess). A port
// found free by listening on port 0 is one of the kernel's ephemeral ports: while the
// server is down, an outgoing connection anywhere on the machine, or another test's
// listener on port 0, may be given it, and the restart fails with "address already in
// use". StableAddr draws the port from below the ephemeral range (ip_local_port_range),
// which the kernel hands to neither; it checks the port free when drawn, and draws at
// random so that tests running in parallel seldom draw the same one.
func StableAddr(t testing.TB) string {
	t.Helper()
	hi := ephemeralLow()
	for range 100 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(stableLow+rand.IntN(hi-stableLow)))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatalf("no free loopback port in [%d, %d) after 100 draws", stableLow, hi)
	return ""
}

// stableLow is the lowest port StableAddr draws: above the ports that services are
// usually configured on.
const stableLow = 20000

// ephemeralLow is the first port of the kernel's ephemeral range: Linux's default, 32768,
// when it cannot be read or leaves too little room above stableLow (the draws then
// overlap the range, as port 0's would).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if lo, err := strconv.Atoi(f[0]); err == nil && lo > stableLow+1000 {
				return lo
			}
		}
	}
	return 32768
}
