package agent

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

func TestSameHost(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 4000} }
	for _, c := range []struct {
		local, remote net.Addr
		want          bool
	}{
		{tcp("127.0.0.1"), tcp("127.0.0.1"), true},
		{tcp("127.0.0.1"), tcp("127.0.0.2"), true},
		{tcp("::1"), tcp("::1"), true},
		{tcp("10.0.0.1"), tcp("10.0.0.1"), true},
		{tcp("10.0.0.1"), tcp("10.0.0.2"), false},
		{tcp("192.168.1.5"), tcp("10.0.0.2"), false},
		{&net.UnixAddr{Name: "/s", Net: "unix"}, &net.UnixAddr{Name: "/s", Net: "unix"}, false},
	} {
		if got := sameHost(c.local, c.remote); got != c.want {
			t.Errorf("sameHost(%v, %v) = %v, want %v", c.local, c.remote, got, c.want)
		}
	}
}

// TestTuneSenderLoopback: a served connection from this host sends with
// loopbackCongestion.
func TestTuneSenderLoopback(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tuneSender(s)
	rc, err := s.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var cc string
	var gerr error
	rc.Control(func(fd uintptr) {
		cc, gerr = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	})
	if gerr != nil {
		t.Fatal(gerr)
	}
	if cc != loopbackCongestion {
		t.Errorf("congestion control %q, want %q", cc, loopbackCongestion)
	}
}
