package dyad_test

import (
	"testing"

	"github.com/couplet-hpc/couplet/dyad/agent"
)

// BenchmarkStagingUCX compares, in one run, staging the same file between two agents over
// the rpc DTL and over the ucx DTL with UCX_TLS=tcp and with shared memory, and the rpc
// and sm ones again with the consumer's content hash off (what is left are the data paths:
// the ucx DTL over sm copies each byte twice, into the window and out of it, where the
// rpc DTL splices it once). The size is COUPLET_BENCH_DYAD_BYTES (64 MiB by default), as
// in BenchmarkStaging.
func BenchmarkStagingUCX(b *testing.B) {
	n := benchBytes(b)
	for _, c := range []struct {
		name string
		mod  func(*agent.Options)
	}{
		{"rpc", func(o *agent.Options) { o.DTL = "rpc" }},
		{"ucx-tcp", ucxOpts("tcp", 0, 0)},
		{"ucx-sm", ucxOpts("sm", 0, 0)},
		{"rpc-nohash", func(o *agent.Options) { o.DTL, o.SkipContentHash = "rpc", true }},
		{"ucx-sm-nohash", func(o *agent.Options) { ucxOpts("sm", 0, 0)(o); o.SkipContentHash = true }},
	} {
		b.Run(c.name, func(b *testing.B) {
			prod := startNode(b, "", c.mod)
			benchConsume(b, prod, startNode(b, prod.agent.KVSEndpoint(), c.mod), n)
		})
	}
}
