package dtf_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/bench"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// BenchmarkExchange runs the case-1 point of bench/ once per b.N iteration
// (bench.RunExchange): a 3-D float64 array moves from 4 writers (2x2
// blocks) to 2 readers (z slabs) by raw MPI and through couplet (pnetcdf +
// dtf.Transfer) side by side in one MPMD run, and through real PnetCDF
// files in the next, 5 timed rounds each.
// ns/op and MB/s are couplet's median exchange; the other metrics are the
// baselines' throughput and the ratios the array-coupling issue targets
// (coupled/MPI >= 0.8, coupled/files >= 2). -short runs only 64 MiB.
func BenchmarkExchange(b *testing.B) {
	bin := mpitest.Build(b, bench.ExchangeProg)
	for _, mib := range []int64{64, 256} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			if mib > 64 && testing.Short() {
				b.Skip("-short: the 64 MiB variant only")
			}
			var p bench.ExchangePoint
			for b.Loop() {
				var err error
				if p, err = bench.RunExchange(bin, mib, 5, nil, 10*time.Minute); err != nil {
					b.Fatal(err)
				}
			}
			mbps := func(mode string) float64 { return p.GBps[mode].Median * 1e3 }
			// SetBytes states the bytes per exchange; ns/op and MB/s are
			// replaced by couplet's measured exchange, since the wall time
			// of an iteration is two whole mpiruns with every system in them.
			b.SetBytes(p.Bytes)
			b.ReportMetric(p.Seconds[bench.ModeCoupled].Median*1e9, "ns/op")
			b.ReportMetric(mbps(bench.ModeCoupled), "MB/s")
			b.ReportMetric(mbps(bench.ModeCoupled), "coupled-MB/s")
			b.ReportMetric(mbps(bench.ModeMPI), "mpi-MB/s")
			b.ReportMetric(mbps(bench.ModeFile), "file-MB/s")
			b.ReportMetric(p.CoupledVsMPI, "coupled/mpi")
			b.ReportMetric(p.CoupledVsFile, "coupled/file")
		})
	}
}
