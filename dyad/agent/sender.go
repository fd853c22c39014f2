package agent

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerSendBuffer is the send buffer of a connection that serves fetches. Left to the
// kernel's autotuning, the buffer of a connection kept for reuse grows to megabytes, and
// sendfile into it then cost the owner's agent twice the CPU of a fresh connection (16
// MiB: 17 ms against 7 ms of CPU per staging on loopback). A fixed buffer keeps the
// sender and the receiver working in step. At 128 KiB (the kernel doubles it) the sender
// stalled whenever the consumer's content check took the core: 512 KiB, one splice piece
// ahead, staged 1 GiB in 0.49-0.69 s against 0.71-0.79 s, and 16 MiB in 11.7-13.1 ms
// against 15.4-19.4 ms (interleaved runs on 2 cores, same total CPU).
const peerSendBuffer = 512 << 10

// loopbackCongestion is the congestion control a connection that serves fetches to an
// agent on the same host sends with, whatever the system's default. With bbr (the
// default on the VM of docs/PERFORMANCE.md), the pooled connection of a pair of agents
// sent 16 MiB at times at half the speed for whole launches of couplet bench's case 4,
// and a staging took 5-7 or 9-13 ms by launch (rpc / raw TCP 0.56-1.11 in six
// launches); with reno 4.8-6.4 ms (0.97-1.33 in six), and with cubic the system's
// default it was as steady. Loopback has no network whose bandwidth and delay a model
// could learn; a loss-based window only has to keep up with the receiver. Reno is in
// every kernel and open to every user.
const loopbackCongestion = "reno"

// tuneSender sets up c, a connection that serves fetches, when it is TCP: its send
// buffer fixed at peerSendBuffer and, to an agent on the same host, loopbackCongestion
// (the system's default stays where the kernel refuses it).
func tuneSender(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	tc.SetWriteBuffer(peerSendBuffer)
	if !sameHost(tc.LocalAddr(), tc.RemoteAddr()) {
		return
	}
	if rc, err := tc.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, loopbackCongestion)
		})
	}
}

// sameHost says whether a TCP connection from local to remote stays on this host: to a
// loopback address, or to the address it leaves from.
func sameHost(local, remote net.Addr) bool {
	l, ok1 := local.(*net.TCPAddr)
	r, ok2 := remote.(*net.TCPAddr)
	return ok1 && ok2 && (r.IP.IsLoopback() || r.IP.Equal(l.IP))
}
