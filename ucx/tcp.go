package ucx

import (
	"os"
	"slices"
	"strings"
	"sync"
)

// tcpSocketBuffer is the send and receive buffer size of UCX's tcp sockets
// unless UCX_TCP_SNDBUF / UCX_TCP_RCVBUF say otherwise. With the kernel's
// default ("auto") a block of several MiB crosses loopback in many small
// steps, each waiting for the peer to wake and drain its socket; with 4 MiB
// the 64 MiB exchange of array coupling over tcp measured 1.4-1.7 times
// faster, on a par with raw MPI over the tcp BTL.
const tcpSocketBuffer = "4M"

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
// with (names without the UCX_ prefix), those of them that the environment,
// read through lookup, leaves unset, when tls (a UCX_TLS value) names tcp;
// none otherwise, since UCX warns of settings that no transport in use reads.
func TCPDefaults(tls string, lookup func(string) (string, bool)) map[string]string {
	cfg := map[string]string{}
	if !slices.Contains(strings.Split(strings.ReplaceAll(tls, " ", ""), ","), "tcp") {
		return cfg
	}
	for k, v := range map[string]string{"TCP_SNDBUF": tcpSocketBuffer, "TCP_RCVBUF": tcpSocketBuffer,
		"TCP_TX_SEG_SIZE": tcpTxSeg, "TCP_RX_SEG_SIZE": tcpRxSeg} {
		if _, set := lookup("UCX_" + k); !set {
			cfg[k] = v
		}
	}
	return cfg
}

// envMu serialises this package's changes to the environment with the UCX
// calls that read it (NewContext, NewWorker): the C library's getenv and
// setenv are not safe against each other.
var envMu sync.Mutex

// SetEnv sets UCX_<name> to each value of cfg in the process environment.
// Settings of a transport (TCP_*) go this way, before NewContext: UCX 1.13
// reads them from the environment when it opens the transport, and applies
// those given to Options.Config to no transport (it warns of them as
// invalid).
func SetEnv(cfg map[string]string) {
	envMu.Lock()
	defer envMu.Unlock()
	for k, v := range cfg {
		os.Setenv("UCX_"+k, v)
	}
}
