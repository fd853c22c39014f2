package mpi_test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

var pingRE = regexp.MustCompile(`PINGPONG bytes=(\d+) iters=(\d+) seconds=([0-9.e+-]+)`)

// BenchmarkPingPong measures point-to-point bandwidth between two real MPI
// processes: the helper times ping-pong under mpirun and the benchmark
// reports its measured time per one-way message, so MB/s excludes startup.
func BenchmarkPingPong(b *testing.B) {
	prog := mpitest.Build(b, "./testprogs/pingpong")
	for _, mib := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			size := mib << 20
			out := mpitest.Run(b, 120*time.Second, mpitest.App{NP: 2, Prog: prog,
				Args: []string{"-size", strconv.Itoa(size), "-iters", strconv.Itoa((b.N + 1) / 2)}})
			m := pingRE.FindStringSubmatch(out)
			if m == nil {
				b.Fatalf("no PINGPONG line in output:\n%s", out)
			}
			iters, _ := strconv.ParseFloat(m[2], 64)
			secs, _ := strconv.ParseFloat(m[3], 64)
			if iters <= 0 || secs <= 0 {
				b.Fatalf("bad measurement: %s", m[0])
			}
			b.SetBytes(int64(size))
			b.ReportMetric(secs/iters*1e9, "ns/op")
			b.ReportMetric(float64(size)*iters/secs/1e6, "MB/s")
		})
	}
}
