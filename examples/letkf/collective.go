package letkf

import (
	"fmt"
	"runtime"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
)

// Agree fails every rank of comm when any rank's check failed, so they all
// stop together; the failing rank reports its own error.
func Agree(comm mpi.Comm, mine error) error {
	bad := []int64{0}
	if mine != nil {
		bad[0] = 1
	}
	all := []int64{0}
	if err := mpi.AllreduceInt64(comm, bad, all, mpi.Sum); err != nil {
		return err
	}
	switch {
	case mine != nil:
		return mine
	case all[0] > 0:
		return fmt.Errorf("%d other ranks failed verification", all[0])
	}
	return nil
}

// Report combines every rank's checksum in rank order and has rank 0 print
// the cycle's line. With mem, every rank collects garbage first and the line
// ends with the largest live heap and the largest resident set (VmRSS) of
// any rank, so a long run shows whether memory stays flat.
func Report(comm mpi.Comm, line string, sum uint64, start time.Time, mem bool) error {
	elapsed := time.Since(start)
	// mine is {live heap bytes, resident KiB}; one Allreduce takes the
	// maximum of both over the component.
	mine := []uint64{0, 0}
	var rssErr error
	if mem {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mine[0] = ms.HeapAlloc
		mine[1], rssErr = ResidentKiB()
	}
	// mem is a flag, the same on every rank: all of them agree, so one
	// rank that cannot read its VmRSS stops them all rather than leaving
	// them waiting in the collectives below.
	if mem {
		if err := Agree(comm, rssErr); err != nil {
			return err
		}
	}
	top := []uint64{0, 0}
	if err := mpi.Allreduce(comm, mine, top, mpi.Max); err != nil {
		return err
	}
	all := make([]uint64, comm.Size())
	if err := mpi.Gather(comm, []uint64{sum}, all, 0); err != nil {
		return err
	}
	if comm.Rank() != 0 {
		return nil
	}
	c := NewChecksum()
	for _, s := range all {
		c.Uint64(s)
	}
	tail := ""
	if mem {
		tail = fmt.Sprintf(", heap %d KiB, rss %d KiB", top[0]>>10, top[1])
	}
	fmt.Printf("%s, checksum %016x, %.1f ms%s\n", line, c.Sum(), float64(elapsed.Microseconds())/1000, tail)
	return nil
}
