// Command testprog is the multi-rank helper of the mpitransport tests: two
// ranks exchange contiguous and strided sub-blocks of a 3-D float64 array
// and complete them with Drive, checking every element, then the two halves
// of a larger array, one sent a pause after the other, so that a reader
// holds the first (mpitransport's holdMin, holdFor). At the end each rank
// prints how its blocks moved:
//
//	single rank 0 readfrom=1 readby=1 reads=32 refused=0
//
// With -undumpable before|after a rank makes itself non-dumpable (before or
// after Join): under a launcher that drops CAP_SYS_PTRACE, the kernel then
// refuses the peer's single-copy reads. After Join, rank 1 also cancels a
// receive whose read was refused (canceledRefused).
package main

import (
	"flag"
	"fmt"
	"math"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/transport/internal/drivecheck"
	"github.com/couplet-hpc/couplet/transport/mpitransport"
)

// driveDeadline bounds every completion loop so that a bug fails, not hangs.
const driveDeadline = 30 * time.Second

var rank int // world rank, for failure lines

func failf(format string, args ...any)  { mpitest.Fail(rank, format, args...) }
func fatalf(format string, args ...any) { mpitest.Fatal(rank, format, args...) }

func must(err error, what string) {
	if err != nil {
		fatalf("%s: %v", what, err)
	}
}

var undumpable = flag.String("undumpable", "", "before|after: make this process non-dumpable before or after Join")

func main() {
	flag.Parse()
	if err := mpi.Init(); err != nil {
		mpitest.Fatal(-1, "Init: %v", err)
	}
	rank = mpi.World().Rank()
	if n := mpi.World().Size(); n != 2 {
		fatalf("needs 2 ranks, got %d", n)
	}
	if *undumpable == "before" {
		must(unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl")
	}
	t, err := mpitransport.Join(0, 1, 20*time.Second)
	must(err, "Join")
	if *undumpable == "after" {
		must(unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl")
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
	if _, ok := any(t).(transport.Driver); !ok {
		fatalf("mpitransport.Transport is not a transport.Driver")
	}
	for _, budget := range []time.Duration{time.Millisecond, 0} {
		exchange(t, budget)
	}
	// Within mpitransport's hold bound (20 ms) and beyond it.
	for _, pause := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond} {
		held(t, pause)
	}
	incomplete(t)
	if *undumpable == "after" {
		canceledRefused(t)
	}
	if err := drivecheck.Watched(t, t, t.Rank(), 1-t.Rank()); err != nil {
		failf("%v", err)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
	if err := drivecheck.Arrived(t, t.Rank(), 1-t.Rank()); err != nil {
		failf("%v", err)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
	foreign(t)
	st := t.SingleCopy()
	fmt.Printf("single rank %d readfrom=%d readby=%d reads=%d refused=%d\n", rank, st.ReadFrom, st.ReadBy, st.Reads, st.Refused)
	must(t.Close(), "Close")
	must(mpi.Finalize(), "Finalize")
	if !mpitest.Failed() {
		fmt.Printf("ok drive rank %d\n", rank)
	}
	mpitest.Exit()
}

// shape is the exchanged array: 96*128*64 float64, 6 MiB.
var shape = []int64{96, 128, 64}

// contiguousBoxes are slabs along the slowest dimension: seven of 256 KiB
// and one of 4.25 MiB, covering the array.
func contiguousBoxes() []drivecheck.Box {
	var bs []drivecheck.Box
	for i := range int64(7) {
		bs = append(bs, drivecheck.Box{Start: []int64{4 * i, 0, 0}, Count: []int64{4, 128, 64}})
	}
	return append(bs, drivecheck.Box{Start: []int64{28, 0, 0}, Count: []int64{68, 128, 64}})
}

// stridedBoxes tile the two fast dimensions 2x4 through every row: eight
// non-contiguous blocks of 768 KiB covering the array.
func stridedBoxes() []drivecheck.Box {
	var bs []drivecheck.Box
	for j := range int64(2) {
		for k := range int64(4) {
			bs = append(bs, drivecheck.Box{Start: []int64{0, 64 * j, 16 * k}, Count: []int64{96, 64, 16}})
		}
	}
	return bs
}

// exchange sends every box of this rank's array to the peer, receives the
// peer's into two arrays (one per box set, each covered by its boxes),
// completes all 32 operations with Drive calls of budget, and checks every
// element.
func exchange(t *mpitransport.Transport, budget time.Duration) {
	peer := 1 - rank
	x, err := drivecheck.Post(t, rank, peer, shape, [][]drivecheck.Box{contiguousBoxes(), stridedBoxes()})
	must(err, "Post")
	calls, err := x.Complete(t, budget, driveDeadline)
	must(err, "Complete")
	if err := x.Check(peer); err != nil {
		failf("budget %v: %v", budget, err)
	}
	// The completed set is done again at once, and each Pending agrees.
	if err := x.CheckDoneAgain(t); err != nil {
		failf("%v", err)
	}
	for i, p := range x.Ps {
		if done, err := p.Test(); !done || err != nil {
			failf("Test of completed operation %d: %v, %v", i, done, err)
		}
	}
	fmt.Printf("rank %d: budget %v: %d blocks each way in %d Drive calls\n", rank, budget, len(x.Ps)/2, calls)
	must(mpi.Barrier(mpi.World()), "Barrier")
}

// heldShape is an array of 32 MiB whose two halves across the fastest
// dimension, of 16 MiB each (mpitransport's holdMin), interleave row by
// row.
var heldShape = []int64{4, 1024, 1024}

// held sends the peer both halves of an array in memory from cma.Alloc,
// the second pause after the first, and receives the peer's halves into an
// array of its own, completing all four with Drive and checking every
// element. With single-copy reads the receiver holds the first half while
// the second's descriptor has not come, then reads both together; with a
// pause beyond the hold bound it reads the first alone.
func held(t *mpitransport.Transport, pause time.Duration) {
	peer := 1 - rank
	n := heldShape[0] * heldShape[1] * heldShape[2]
	mem, err := cma.Alloc(int(8 * n))
	must(err, "cma.Alloc")
	defer func() { must(cma.Free(mem), "cma.Free") }()
	x := &drivecheck.Exchange{Shape: heldShape, Src: unsafe.Slice((*float64)(unsafe.Pointer(&mem[0])), n),
		Dsts: [][]float64{make([]float64, n)}}
	for i := range x.Src {
		x.Src[i] = drivecheck.Value(rank, i)
	}
	for i := range x.Dsts[0] {
		x.Dsts[0][i] = math.NaN()
	}
	halves := []drivecheck.Box{
		{Start: []int64{0, 0, 0}, Count: []int64{4, 1024, 512}},
		{Start: []int64{0, 0, 512}, Count: []int64{4, 1024, 512}},
	}
	for i, b := range halves {
		r, err := t.RecvBlock(peer, 200+i, drivecheck.Block(x.Dsts[0], heldShape, b))
		must(err, "RecvBlock")
		x.Ps = append(x.Ps, r)
	}
	send := func(i int) {
		s, err := t.SendBlock(peer, 200+i, drivecheck.Block(x.Src, heldShape, halves[i]))
		must(err, "SendBlock")
		x.Ps = append(x.Ps, s)
	}
	must(mpi.Barrier(mpi.World()), "Barrier") // the pauses start together
	send(0)
	for end := time.Now().Add(pause); time.Now().Before(end); {
		_, err := t.Drive(x.Ps, time.Until(end), -1)
		must(err, "Drive")
	}
	send(1)
	_, err = x.Complete(t, time.Millisecond, driveDeadline)
	must(err, fmt.Sprintf("pause %v: Complete", pause))
	if err := x.Check(peer); err != nil {
		failf("pause %v: %v", pause, err)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
}

// incomplete drives a set holding a receive nobody sends: Drive reports
// not done after at least its budget, and the receive can be canceled.
func incomplete(t *mpitransport.Transport) {
	peer := 1 - rank
	buf := make([]float64, 8)
	got := make([]float64, 8)
	b := drivecheck.Block(got, []int64{8}, drivecheck.Box{Start: []int64{0}, Count: []int64{8}})
	r, err := t.RecvBlock(peer, 500, b)
	must(err, "RecvBlock")
	orphan, err := t.RecvBlock(peer, 999, drivecheck.Block(buf, []int64{2, 4}, drivecheck.Box{Start: []int64{0, 1}, Count: []int64{2, 2}}))
	must(err, "RecvBlock")
	s, err := t.SendBlock(peer, 500, drivecheck.Block([]float64{1, 2, 3, 4, 5, 6, 7, float64(rank)}, []int64{8}, drivecheck.Box{Start: []int64{0}, Count: []int64{8}}))
	must(err, "SendBlock")
	const budget = 5 * time.Millisecond
	start := time.Now()
	done, err := t.Drive([]transport.Pending{r, s, orphan}, budget, -1)
	if el := time.Since(start); done || err != nil || el < budget {
		failf("Drive with an unmatched receive: done=%v err=%v after %v, want false after >= %v", done, err, el, budget)
	}
	if done, err := t.Drive([]transport.Pending{orphan}, 0, -1); done || err != nil {
		failf("Drive budget 0 on an unmatched receive: %v, %v", done, err)
	}
	must(orphan.Cancel(), "Cancel")
	// A receive large enough for the single-copy path that nobody sends.
	big := make([]float64, mpitransport.MinSingleCopy/8)
	orphan2, err := t.RecvBlock(peer, 998, drivecheck.Block(big, []int64{int64(len(big))}, drivecheck.Box{Start: []int64{0}, Count: []int64{int64(len(big))}}))
	must(err, "RecvBlock")
	if done, err := t.Drive([]transport.Pending{orphan2}, time.Millisecond, -1); done || err != nil {
		failf("Drive on an unmatched large receive: %v, %v", done, err)
	}
	must(orphan2.Cancel(), "Cancel")
	if done, _ := orphan2.Test(); !done {
		failf("Test of a canceled receive: not done")
	}
	if done, err := t.Drive([]transport.Pending{r, s}, driveDeadline, -1); !done || err != nil {
		failf("Drive on the matched pair: %v, %v", done, err)
	}
	if got[7] != float64(peer) || got[0] != 1 {
		failf("block completed by Drive holds %v", got)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
}

// canceledRefused has rank 1 cancel a receive whose single-copy read the
// kernel refused, once it asked rank 0 for the block by MPI instead: rank
// 0's send completes (a canceled MPI receive would leave it waiting), and
// the block holds rank 0's values when Cancel returns.
func canceledRefused(t *mpitransport.Transport) {
	shape := []int64{mpitransport.MinSingleCopy / 8}
	box := drivecheck.Box{Start: []int64{0}, Count: shape}
	buf := make([]float64, shape[0])
	for i := range buf {
		buf[i] = drivecheck.Value(0, i)
		if rank == 1 {
			buf[i] = math.NaN()
		}
	}
	if rank == 0 {
		s, err := t.SendBlock(1, 600, drivecheck.Block(buf, shape, box))
		must(err, "SendBlock")
		if done, err := t.Drive([]transport.Pending{s}, driveDeadline, -1); !done || err != nil {
			failf("send to a receive canceled after a refused read: done=%v err=%v after %v", done, err, driveDeadline)
		}
		must(mpi.Barrier(mpi.World()), "Barrier")
		return
	}
	r, err := t.RecvBlock(0, 600, drivecheck.Block(buf, shape, box))
	must(err, "RecvBlock")
	refused := t.SingleCopy().Refused
	for end := time.Now().Add(driveDeadline); t.SingleCopy().Refused == refused; {
		if time.Now().After(end) {
			fatalf("no read refused in %v", driveDeadline)
		}
		if done, err := r.Test(); done || err != nil {
			fatalf("receive whose read is refused: done=%v err=%v", done, err)
		}
	}
	must(r.Cancel(), "Cancel after a refused read")
	if err := (&drivecheck.Exchange{Dsts: [][]float64{buf}}).Check(0); err != nil {
		failf("block canceled after a refused read: %v", err)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
}

// other is a Pending from somewhere else.
type other struct{}

func (other) Test() (bool, error) { return true, nil }
func (other) Cancel() error       { return nil }

// foreign checks that Drive refuses operations it did not start.
func foreign(t *mpitransport.Transport) {
	done, err := t.Drive([]transport.Pending{other{}}, time.Millisecond, -1)
	if done || err == nil {
		failf("Drive on a foreign Pending: %v, %v; want an error", done, err)
	}
}
