package ucx

import (
	"slices"
	"strings"
)

// tcpRecvBuffer is the receive buffer size of UCX's tcp sockets unless
// UCX_TCP_RCVBUF says otherwise. With the kernel's default ("auto") a block
// of several MiB crosses loopback in many small steps, each waiting for the
// peer to wake and drain its socket; with 4 MiB for both buffers the 64 MiB
// exchange of array coupling over tcp measured 1.4-1.7 times faster. Smaller
// receive buffers measured slower there, with the send buffer at 384 KiB
// (three interleaved triples, rounds at 64 / 256 MiB: 4 MiB 21.2-25.8 /
// 76-104 ms, 1 MiB 21.6-28.7 / 109-113, 768 KiB 28.0-32.8 / 117-126).
const tcpRecvBuffer = "4M"

// The send buffer sizes of UCX's tcp sockets (UCX_TCP_SNDBUF) for the two
// kinds of traffic this project sends; TCPDefaults takes one of them. The
// kernel doubles the size asked for.
const (
	// SendBufferExchange is for array coupling's tag messages, which the
	// receiver copies out of its socket into its rows as they come. With a
	// buffer of 4 MiB one progress call of the sender's worker copied
	// megabytes into the kernel and ran for milliseconds (2-3 ms of CPU,
	// 5-15 ms on a crowded core), in which a rank hosting a matcher
	// answered no reader (the second reader's request waited 4-18 ms in
	// half the rounds), and the receiver copied out bytes written long
	// before (likely no longer in the cache) instead of taking turns with
	// the sender in smaller pieces. Case 6a of couplet bench, UCX tcp / raw
	// MPI over tcp within each launch (two interleaved runs of two launches
	// each): 1.05-1.10 at 64 MiB and 0.90-1.53 at 256 MiB with 384 KiB,
	// against 0.60-0.80 and 0.73-0.97 with 4 MiB; 1 GiB rounds took 335-406
	// ms against 515-550. Among 128, 192, 256, 384, 512 and 768 KiB, 384 was
	// fastest at 64 and 256 MiB (128 KiB: 31-32 ms a round at 64 MiB
	// against 19-21).
	SendBufferExchange = "384K"
	// SendBufferStream is for the ucx DTL's puts of whole 4 MiB slots into
	// a consumer's window, which a buffer that takes a slot at once moves
	// faster: staging 256 MiB over tcp took 0.23-0.24 s with 4 MiB against
	// 0.34-0.44 with 384 KiB (two launches each).
	SendBufferStream = "4M"
)

// tcpTxSeg and tcpRxSeg are the segment sizes of UCX's tcp transport
// unless UCX_TCP_TX_SEG_SIZE / UCX_TCP_RX_SEG_SIZE say otherwise (UCX
// defaults to 8 KiB and 64 KiB). The 256 MiB exchange of array coupling
// over tcp measured 1.15-1.6 times faster with these, in each of three
// interleaved runs. The transmit segment is what an RMA put goes out in:
// BenchmarkPut over tcp (16 and 64 MiB, put and flush into a peer's window)
// moved 1.87-1.95 GB/s with 64 KiB against 0.73-0.86 with 8 KiB.
const (
	tcpTxSeg = "64K"
	tcpRxSeg = "256K"
)

// TCPDefaults returns the settings of UCX's tcp transport this project runs
// with (names without the UCX_ prefix), with sendBuffer as the socket send
// buffer (SendBufferExchange or SendBufferStream), those of them that the
// environment, read through lookup, leaves unset, when tls (a UCX_TLS value)
// names tcp; none otherwise, since UCX warns of settings that no transport
// in use reads.
func TCPDefaults(tls, sendBuffer string, lookup func(string) (string, bool)) map[string]string {
	cfg := map[string]string{}
	if !slices.Contains(strings.Split(strings.ReplaceAll(tls, " ", ""), ","), "tcp") {
		return cfg
	}
	for k, v := range map[string]string{"TCP_SNDBUF": sendBuffer, "TCP_RCVBUF": tcpRecvBuffer,
		"TCP_TX_SEG_SIZE": tcpTxSeg, "TCP_RX_SEG_SIZE": tcpRxSeg} {
		if _, set := lookup("UCX_" + k); !set {
			cfg[k] = v
		}
	}
	return cfg
}
