package matcher

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// blockCase returns a 3-D array of side n*b written as n^3 blocks of b^3
// and read as n^3 blocks of the same size shifted by b/2 in every dimension
// (clipped at the far edge), so almost every read overlaps 8 writes: the
// "different decomposition" pattern. Ranks own cubes of g^3 blocks
// (g = n/10 when n >= 10, so 1000 writer and 1000 reader ranks at n = 100),
// and requests arrive grouped by rank, as a matcher receives them.
func blockCase(n, b int64) ([]Write, []Read) {
	return blockCaseShift(n, b, [3]int64{b / 2, b / 2, b / 2})
}

// blockCaseShift is blockCase with the read decomposition shifted by sh.
func blockCaseShift(n, b int64, sh [3]int64) ([]Write, []Read) {
	g := max(1, n/10)
	ws := make([]Write, 0, n*n*n)
	rs := make([]Read, 0, n*n*n)
	side := n * b
	coords := make([]int64, 0, 12*n*n*n)
	box := func(s0, s1, s2, c0, c1, c2 int64) Box {
		coords = append(coords, s0, s1, s2, c0, c1, c2)
		c := coords[len(coords)-6:]
		return Box{Start: c[0:3:3], Count: c[3:6:6]}
	}
	clip := func(s int64) int64 { return min(b, side-s) }
	nr := (n + g - 1) / g // ranks per dimension
	for ri := range nr {
		for rj := range nr {
			for rk := range nr {
				rank := int((ri*nr+rj)*nr + rk)
				for i := ri * g; i < min(n, (ri+1)*g); i++ {
					for j := rj * g; j < min(n, (rj+1)*g); j++ {
						for k := rk * g; k < min(n, (rk+1)*g); k++ {
							blk := int64((i*n+j)*n + k)
							ws = append(ws, Write{Rank: rank, Var: 0, Seq: blk, Box: box(i*b, j*b, k*b, b, b, b)})
							s0, s1, s2 := i*b+sh[0], j*b+sh[1], k*b+sh[2]
							rs = append(rs, Read{Rank: rank, Var: 0, ID: blk, Box: box(s0, s1, s2, clip(s0), clip(s1), clip(s2))})
						}
					}
				}
			}
		}
	}
	return ws, rs
}

// randomBoxes returns n random 3-D writes and reads of mixed sizes (1 to 16
// per side) in a domain sized so each element is written about twice.
func randomBoxes(n int) ([]Write, []Read) {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	side := int64(1)
	for side*side*side < int64(n)*8*8*8/2 {
		side++
	}
	box := func() Box {
		b := Box{Start: make([]int64, 3), Count: make([]int64, 3)}
		for k := range 3 {
			b.Count[k] = 1 + rng.Int64N(16)
			b.Start[k] = rng.Int64N(side)
		}
		return b
	}
	ws := make([]Write, n)
	rs := make([]Read, n)
	for i := range n {
		ws[i] = Write{Rank: i % 1024, Seq: int64(i), Box: box()}
		rs[i] = Read{Rank: i % 512, ID: int64(i), Box: box()}
	}
	return ws, rs
}

func benchMatch(b *testing.B, ws []Write, rs []Read) {
	b.ReportAllocs()
	var s Schedule
	var err error
	cpu0 := cpuTime()
	start := time.Now()
	for b.Loop() {
		if s, err = Match(ws, rs); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(el, "s/match")
	// CPU seconds (user+system, all threads incl. GC) per match: what the
	// matcher costs on a shared machine where wall time is noisy.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/match")
	b.ReportMetric(el*1e9/float64(len(ws)+len(rs)), "ns/box")
	b.ReportMetric(float64(s.Len()), "transfers")
	b.ReportMetric(float64(len(s.Uncovered)), "uncovered")
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMatch1M matches 1,000,000 write blocks against 1,000,000 reads
// of a shifted decomposition (about 8 million transfers) on one matcher.
func BenchmarkMatch1M(b *testing.B) {
	ws, rs := blockCase(100, 8)
	benchMatch(b, ws, rs)
}

// BenchmarkMatch1MShiftDim0 is BenchmarkMatch1M with the reads shifted
// along dimension 0 only: about 2 transfers per read.
func BenchmarkMatch1MShiftDim0(b *testing.B) {
	ws, rs := blockCaseShift(100, 8, [3]int64{4, 0, 0})
	benchMatch(b, ws, rs)
}

// BenchmarkMatchScaling shows cost per box from 10^3 to 10^6 boxes for
// block decompositions and for random mixed-size boxes: ns/box must stay
// flat or grow at most logarithmically.
func BenchmarkMatchScaling(b *testing.B) {
	for _, n := range []int64{10, 22, 46, 100} {
		ws, rs := blockCase(n, 8)
		b.Run(fmt.Sprintf("blocks/n=%d", n*n*n), func(b *testing.B) { benchMatch(b, ws, rs) })
	}
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		ws, rs := randomBoxes(n)
		b.Run(fmt.Sprintf("random/n=%d", n), func(b *testing.B) { benchMatch(b, ws, rs) })
	}
}
