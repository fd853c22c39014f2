package dyad_test

import (
	"os"
	"path/filepath"
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
			cons := startNode(b, prod.agent.KVSEndpoint(), c.mod)
			writeBenchFile(b, filepath.Join(prod.dir, "big.bin"), n)
			if _, err := prod.client.Produce("big.bin"); err != nil {
				b.Fatal(err)
			}
			dest := filepath.Join(cons.dir, "big.bin")
			b.SetBytes(int64(n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				os.Remove(dest) // the local copy goes, so every iteration fetches
				b.StartTimer()
				if _, err := cons.client.Consume("big.bin"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
