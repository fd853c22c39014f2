package bench

import (
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/matcher"
)

// MatchPoint is case 2 at one problem size and matcher count.
type MatchPoint struct {
	Boxes     int   `json:"boxes"`     // write boxes (the same number of read boxes)
	Matchers  int   `json:"matchers"`  // matchers the range partition splits over
	Pieces    int   `json:"pieces"`    // write+read pieces after splitting at partition boundaries
	Transfers int   `json:"transfers"` // scheduled transfers over all matchers
	Elements  int64 `json:"elements"`  // elements those transfers move
	Reps      int   `json:"reps"`
	// Critical is the slowest matcher's Match time (the critical path when
	// matchers run on their own ranks), Total the sum over matchers, and
	// Split the partitioning of all requests, in seconds.
	Critical Summary `json:"critical_s"`
	// CriticalCPU is the process CPU time (user+system, garbage collector
	// included) of the slowest matcher's Match: unlike its wall time it
	// does not grow when other work shares the machine.
	CriticalCPU Summary `json:"critical_cpu_s"`
	Total       Summary `json:"total_s"`
	Split       Summary `json:"split_s"`
}

// BlockBoxes returns the case-2 workload: a 3-D array of side n*b written as
// n^3 blocks of b^3 and read as n^3 blocks shifted by b/2 along every
// dimension (clipped at the far edge), so most reads overlap 8 writes, the
// pattern of two different decompositions. Ranks own cubes of blocks
// (1000 writer and 1000 reader ranks at n = 100).
func BlockBoxes(n, b int64) ([]matcher.Write, []matcher.Read, []int64) {
	g := max(1, n/10)
	side := n * b
	ws := make([]matcher.Write, 0, n*n*n)
	rs := make([]matcher.Read, 0, n*n*n)
	for i := range n {
		for j := range n {
			for k := range n {
				rank := int(((i/g)*(n/g+1)+j/g)*(n/g+1) + k/g)
				blk := (i*n+j)*n + k
				ws = append(ws, matcher.Write{Rank: rank, Seq: blk, Box: matcher.Box{
					Start: []int64{i * b, j * b, k * b}, Count: []int64{b, b, b}}})
				s := []int64{i*b + b/2, j*b + b/2, k*b + b/2}
				c := []int64{min(b, side-s[0]), min(b, side-s[1]), min(b, side-s[2])}
				rs = append(rs, matcher.Read{Rank: rank, ID: blk, Box: matcher.Box{Start: s, Count: c}})
			}
		}
	}
	return ws, rs, []int64{side, side, side}
}

// MeasureMatching splits the workload of side n (n^3 write and n^3 read
// boxes) over m matchers with the range partition and times each matcher's
// Match reps times, one matcher after another in this process, on one core
// (GOMAXPROCS 1, so the garbage collector shares it), as a matcher rank has.
// Each matcher's pieces keep the workload's order and hold their
// coordinates in buffers of their own (see boxStore).
func MeasureMatching(n int64, m, reps int) (MatchPoint, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ws, rs, shape := BlockBoxes(n, 8)
	p := MatchPoint{Boxes: len(ws), Matchers: m, Reps: reps}
	part, err := matcher.NewPartition(matcher.ModeRange, m)
	if err != nil {
		return p, err
	}
	if err := part.SetShape(0, shape); err != nil {
		return p, err
	}
	var pw [][]matcher.Write
	var pr [][]matcher.Read
	var split, crit, critCPU, total []float64
	for range reps {
		t0 := time.Now()
		pw, pr = make([][]matcher.Write, m), make([][]matcher.Read, m)
		stores := make([]boxStore, m)
		for _, w := range ws {
			part.SplitFunc(w.Var, w.Box, func(j int, b matcher.Box) {
				w2 := w
				w2.Box = stores[j].add(b)
				pw[j] = append(pw[j], w2)
			})
		}
		for _, r := range rs {
			part.SplitFunc(r.Var, r.Box, func(j int, b matcher.Box) {
				r2 := r
				r2.Box = stores[j].add(b)
				pr[j] = append(pr[j], r2)
			})
		}
		split = append(split, time.Since(t0).Seconds())
		p.Pieces, p.Transfers, p.Elements = 0, 0, 0
		var slowest, slowestCPU, sum float64
		for j := range m {
			p.Pieces += len(pw[j]) + len(pr[j])
			runtime.GC() // each matcher starts from a clean heap, as on its own rank
			c0, t := processCPU(), time.Now()
			s, err := matcher.Match(pw[j], pr[j])
			el, cpu := time.Since(t).Seconds(), (processCPU() - c0).Seconds()
			if err != nil {
				return p, err
			}
			if len(s.Uncovered) != 0 {
				return p, fmt.Errorf("bench: matcher %d of %d left %d reads uncovered", j, m, len(s.Uncovered))
			}
			p.Transfers += s.Len()
			for tr := range s.All() {
				p.Elements += tr.Box.Volume()
			}
			if el > slowest {
				slowestCPU = cpu
			}
			slowest, sum = max(slowest, el), sum+el
		}
		crit, critCPU, total = append(crit, slowest), append(critCPU, slowestCPU), append(total, sum)
	}
	p.Critical, p.CriticalCPU, p.Total, p.Split = Summarize(crit), Summarize(critCPU), Summarize(total), Summarize(split)
	return p, nil
}

// boxStore holds the coordinates of one matcher's pieces in large chunks,
// in arrival order, as a matcher that receives its requests in a few
// messages decodes them into a few buffers, rather than in two small
// allocations per piece.
type boxStore struct{ free []int64 }

// storeChunk is the size of a boxStore chunk in coordinates (1 MiB).
const storeChunk = 1 << 17

// add returns a copy of b whose coordinates live in s.
func (s *boxStore) add(b matcher.Box) matcher.Box {
	d := len(b.Start)
	if len(s.free) < 2*d {
		s.free = make([]int64, max(storeChunk, 2*d))
	}
	c := s.free[: 2*d : 2*d]
	s.free = s.free[2*d:]
	copy(c, b.Start)
	copy(c[d:], b.Count)
	return matcher.Box{Start: c[:d:d], Count: c[d:]}
}

// processCPU returns the user+system CPU time of this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
