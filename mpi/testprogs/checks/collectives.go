package main

import (
	"github.com/couplet-hpc/couplet/mpi"
)

// collectives checks every collective against values computed locally.
func collectives(w mpi.Comm, _ []string) {
	size := w.Size()
	must(mpi.Barrier(w), "Barrier")

	// Bcast from the last rank.
	b := make([]uint32, 5000)
	if rank == size-1 {
		for i := range b {
			b[i] = uint32(i * 3)
		}
	}
	must(mpi.Bcast(w, b, size-1), "Bcast")
	for i, v := range b {
		if v != uint32(i*3) {
			failf("Bcast: b[%d] = %d, want %d", i, v, i*3)
			break
		}
	}

	// Gather three values per rank at rank 1.
	root := 1 % size
	g := make([]int16, 3*size)
	must(mpi.Gather(w, []int16{int16(rank), int16(rank * 10), -1}, g, root), "Gather")
	if rank == root {
		for r := range size {
			if g[3*r] != int16(r) || g[3*r+1] != int16(r*10) || g[3*r+2] != -1 {
				failf("Gather: block %d = %v", r, g[3*r:3*r+3])
			}
		}
	}

	// Allgather one value per rank.
	ag := make([]float32, size)
	must(mpi.Allgather(w, []float32{float32(rank) + 0.5}, ag), "Allgather")
	for r, v := range ag {
		if v != float32(r)+0.5 {
			failf("Allgather: ag[%d] = %v", r, v)
		}
	}

	// Allgatherv: rank r contributes r values (rank 0 none).
	counts := make([]int, size)
	total := 0
	for r := range counts {
		counts[r] = r
		total += r
	}
	mine := make([]int64, rank)
	for i := range mine {
		mine[i] = int64(rank*100 + i)
	}
	agv := make([]int64, total)
	must(mpi.Allgatherv(w, mine, agv, counts), "Allgatherv")
	pos := 0
	for r := range size {
		for i := range r {
			if agv[pos] != int64(r*100+i) {
				failf("Allgatherv: element %d = %d, want %d", pos, agv[pos], r*100+i)
			}
			pos++
		}
	}
	if err := mpi.Allgatherv(w, mine, agv, counts[:size-1]); err == nil {
		failf("Allgatherv with too few counts returned no error")
	}

	// Reductions: sum, min and max of rank-dependent vectors.
	n := int64(size)
	sumRanks := n * (n - 1) / 2
	ints := []int64{int64(rank), -int64(rank), 1 << 40}
	for _, c := range []struct {
		op   mpi.Op
		want []int64
	}{
		{mpi.Sum, []int64{sumRanks, -sumRanks, n << 40}},
		{mpi.Min, []int64{0, -(n - 1), 1 << 40}},
		{mpi.Max, []int64{n - 1, 0, 1 << 40}},
	} {
		got := make([]int64, len(ints))
		must(mpi.AllreduceInt64(w, ints, got, c.op), "AllreduceInt64")
		for i := range got {
			if got[i] != c.want[i] {
				failf("AllreduceInt64 op %d: %v, want %v", c.op, got, c.want)
				break
			}
		}
	}
	fl := []float64{float64(rank) * 0.25, 1.5}
	for _, c := range []struct {
		op   mpi.Op
		want []float64
	}{
		{mpi.Sum, []float64{float64(sumRanks) * 0.25, 1.5 * float64(n)}},
		{mpi.Min, []float64{0, 1.5}},
		{mpi.Max, []float64{float64(n-1) * 0.25, 1.5}},
	} {
		got := make([]float64, len(fl))
		must(mpi.AllreduceFloat64(w, fl, got, c.op), "AllreduceFloat64")
		if got[0] != c.want[0] || got[1] != c.want[1] {
			failf("AllreduceFloat64 op %d: %v, want %v", c.op, got, c.want)
		}
	}
	if err := mpi.AllreduceInt64(w, ints, make([]int64, 1), mpi.Sum); err == nil {
		failf("AllreduceInt64 with mismatched lengths returned no error")
	}
}
