// Command testprog is the multi-rank helper of the mpitransport tests: two
// ranks exchange contiguous and strided sub-blocks of a 3-D float64 array
// and complete them with Drive, checking every element.
package main

import (
	"fmt"
	"math"
	"runtime"
	"time"
	"unsafe"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
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

func main() {
	if err := mpi.Init(); err != nil {
		mpitest.Fatal(-1, "Init: %v", err)
	}
	rank = mpi.World().Rank()
	if n := mpi.World().Size(); n != 2 {
		fatalf("needs 2 ranks, got %d", n)
	}
	t, err := mpitransport.Join(0, 1, 20*time.Second)
	must(err, "Join")
	if _, ok := any(t).(transport.Driver); !ok {
		fatalf("mpitransport.Transport is not a transport.Driver")
	}
	for _, budget := range []time.Duration{time.Millisecond, 0} {
		exchange(t, budget)
	}
	incomplete(t)
	foreign(t)
	must(t.Close(), "Close")
	must(mpi.Finalize(), "Finalize")
	if !mpitest.Failed() {
		fmt.Printf("ok drive rank %d\n", rank)
	}
	mpitest.Exit()
}

// shape is the exchanged array: 96*128*64 float64, 6 MiB.
var shape = []int64{96, 128, 64}

// box is one sub-block of shape.
type box struct{ start, count []int64 }

// contiguousBoxes are slabs along the slowest dimension: seven of 256 KiB
// and one of 4.25 MiB, covering the array.
func contiguousBoxes() []box {
	var bs []box
	for i := range int64(7) {
		bs = append(bs, box{[]int64{4 * i, 0, 0}, []int64{4, 128, 64}})
	}
	return append(bs, box{[]int64{28, 0, 0}, []int64{68, 128, 64}})
}

// stridedBoxes tile the two fast dimensions 2x4 through every row: eight
// non-contiguous blocks of 768 KiB covering the array.
func stridedBoxes() []box {
	var bs []box
	for j := range int64(2) {
		for k := range int64(4) {
			bs = append(bs, box{[]int64{0, 64 * j, 16 * k}, []int64{96, 64, 16}})
		}
	}
	return bs
}

// value is element i of rank r's source array.
func value(r int, i int) float64 { return float64(r)*1e7 + float64(i) }

// asBytes views a float64 slice as its bytes.
func asBytes(s []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s))
}

func block(buf []float64, b box) transport.Block {
	return transport.Block{Buf: asBytes(buf), ElemSize: 8, Shape: shape, Start: b.start, Count: b.count}
}

// exchange sends every box of this rank's array to the peer, receives the
// peer's into two arrays (one per box set, each covered by its boxes),
// completes all 32 operations with Drive calls of budget, and checks every
// element.
func exchange(t *mpitransport.Transport, budget time.Duration) {
	peer := 1 - rank
	n := int(shape[0] * shape[1] * shape[2])
	src := make([]float64, n)
	for i := range src {
		src[i] = value(rank, i)
	}
	sets := [][]box{contiguousBoxes(), stridedBoxes()}
	dsts := make([][]float64, len(sets))
	var ps []transport.Pending
	tag := 0
	for s, bs := range sets {
		dsts[s] = make([]float64, n)
		for i := range dsts[s] {
			dsts[s][i] = math.NaN()
		}
		for _, b := range bs {
			p, err := t.RecvBlock(peer, tag, block(dsts[s], b))
			must(err, "RecvBlock")
			ps = append(ps, p)
			p, err = t.SendBlock(peer, tag, block(src, b))
			must(err, "SendBlock")
			ps = append(ps, p)
			tag++
		}
	}
	deadline := time.Now().Add(driveDeadline)
	calls := 0
	for {
		done, err := transport.Drive(t, ps, budget)
		must(err, fmt.Sprintf("Drive (budget %v)", budget))
		calls++
		if done {
			break
		}
		if time.Now().After(deadline) {
			fatalf("budget %v: blocks not complete after %v (%d Drive calls)", budget, driveDeadline, calls)
		}
		if budget <= 0 {
			time.Sleep(50 * time.Microsecond)
		} else {
			runtime.Gosched()
		}
		if calls%16 == 0 {
			runtime.GC() // the buffers must stay pinned
		}
	}
	for s, dst := range dsts {
		for i, v := range dst {
			if want := value(peer, i); v != want {
				failf("budget %v: set %d: element %d = %v, want %v", budget, s, i, v, want)
				break
			}
		}
	}
	// The completed set is done again at once, and each Pending agrees.
	start := time.Now()
	if done, err := t.Drive(ps, time.Second); !done || err != nil {
		failf("Drive on a completed set: %v, %v", done, err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		failf("Drive on a completed set took %v", el)
	}
	for i, p := range ps {
		if done, err := p.Test(); !done || err != nil {
			failf("Test of completed operation %d: %v, %v", i, done, err)
		}
	}
	fmt.Printf("rank %d: budget %v: %d blocks each way in %d Drive calls\n", rank, budget, len(ps)/2, calls)
	must(mpi.Barrier(mpi.World()), "Barrier")
}

// incomplete drives a set holding a receive nobody sends: Drive reports
// not done after at least its budget, and the receive can be canceled.
func incomplete(t *mpitransport.Transport) {
	peer := 1 - rank
	buf := make([]float64, 8)
	got := make([]float64, 8)
	b := transport.Block{Buf: asBytes(got), ElemSize: 8, Shape: []int64{8}, Start: []int64{0}, Count: []int64{8}}
	r, err := t.RecvBlock(peer, 500, b)
	must(err, "RecvBlock")
	orphan, err := t.RecvBlock(peer, 999, transport.Block{Buf: asBytes(buf), ElemSize: 8, Shape: []int64{2, 4}, Start: []int64{0, 1}, Count: []int64{2, 2}})
	must(err, "RecvBlock")
	s, err := t.SendBlock(peer, 500, transport.Block{Buf: asBytes([]float64{1, 2, 3, 4, 5, 6, 7, float64(rank)}), ElemSize: 8, Shape: []int64{8}, Start: []int64{0}, Count: []int64{8}})
	must(err, "SendBlock")
	const budget = 5 * time.Millisecond
	start := time.Now()
	done, err := t.Drive([]transport.Pending{r, s, orphan}, budget)
	if el := time.Since(start); done || err != nil || el < budget {
		failf("Drive with an unmatched receive: done=%v err=%v after %v, want false after >= %v", done, err, el, budget)
	}
	if done, err := t.Drive([]transport.Pending{orphan}, 0); done || err != nil {
		failf("Drive budget 0 on an unmatched receive: %v, %v", done, err)
	}
	must(orphan.Cancel(), "Cancel")
	if done, err := t.Drive([]transport.Pending{r, s}, driveDeadline); !done || err != nil {
		failf("Drive on the matched pair: %v, %v", done, err)
	}
	if got[7] != float64(peer) || got[0] != 1 {
		failf("block completed by Drive holds %v", got)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
}

// other is a Pending from somewhere else.
type other struct{}

func (other) Test() (bool, error) { return true, nil }
func (other) Cancel() error       { return nil }

// foreign checks that Drive refuses operations it did not start.
func foreign(t *mpitransport.Transport) {
	done, err := t.Drive([]transport.Pending{other{}}, time.Millisecond)
	if done || err == nil {
		failf("Drive on a foreign Pending: %v, %v; want an error", done, err)
	}
}
