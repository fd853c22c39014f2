package mpi_test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

var driveRE = regexp.MustCompile(`DRIVE mode=(\w+) bytes=(\d+) rounds=(\d+) seconds=([0-9.e+-]+)`)

// BenchmarkDrive compares, in one mpirun and taking turns, four ways of
// completing a 256 MiB transfer (16 messages) from every even rank to the
// next odd one: MPI_Waitall, TestallFor(1ms) then sched_yield in a loop,
// TestallFor(5ms) watching a control tag in a loop (as the transports
// drive data), and a Go loop of per-request MPI_Test with sched_yield every 8 rounds.
// MB/s is Waitall's; the other modes report their own MB/s and their
// ratio to Waitall. np6 puts 3 pairs on this machine's 2 cores, as the
// coupled benchmarks do.
func BenchmarkDrive(b *testing.B) {
	prog := mpitest.Build(b, "./testprogs/drivebench")
	const size = 256 << 20
	for _, np := range []int{2, 6} {
		b.Run(fmt.Sprintf("256MiB/np%d", np), func(b *testing.B) {
			rounds := max(b.N, 5)
			out := mpitest.Run(b, 10*time.Minute, mpitest.App{NP: np, Prog: prog,
				Args: []string{"-size", strconv.Itoa(size), "-msgs", "16", "-rounds", strconv.Itoa(rounds)}})
			perRound := map[string]float64{}
			for _, m := range driveRE.FindAllStringSubmatch(out, -1) {
				n, _ := strconv.ParseFloat(m[3], 64)
				secs, _ := strconv.ParseFloat(m[4], 64)
				if n > 0 && secs > 0 {
					perRound[m[1]] = secs / n
				}
			}
			for _, mode := range []string{"waitall", "testallfor", "watched", "testloop"} {
				if perRound[mode] == 0 {
					b.Fatalf("no DRIVE line for %s in output:\n%s", mode, out)
				}
			}
			wait := perRound["waitall"]
			b.SetBytes(size)
			b.ReportMetric(wait*1e9, "ns/op")
			b.ReportMetric(size/wait/1e6, "MB/s")
			for _, mode := range []string{"testallfor", "watched", "testloop"} {
				b.ReportMetric(size/perRound[mode]/1e6, mode+"-MB/s")
				b.ReportMetric(wait/perRound[mode], mode+"/waitall")
			}
		})
	}
}
