// Command driveprog is the multi-rank helper of the ucxtransport Drive
// test: the ranks of one component join through the KVS, exchange
// contiguous and strided sub-blocks of a 3-D float64 array over UCX (and
// one to themselves), and complete them with Drive, checking every element.
package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs"
	_ "github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/internal/drivecheck"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

var (
	kvsURL = flag.String("kvs", "", "KVS URL (etcd://host:port)")
	ns     = flag.String("ns", "", "namespace")
)

// driveDeadline bounds every completion loop so that a bug fails, not hangs.
const driveDeadline = 30 * time.Second

var rank int

func fatalf(format string, args ...any) { mpitest.Fatal(rank, format, args...) }
func failf(format string, args ...any)  { mpitest.Fail(rank, format, args...) }

func must(err error, what string) {
	if err != nil {
		fatalf("%s: %v", what, err)
	}
}

func main() {
	flag.Parse()
	if err := mpi.Init(); err != nil {
		mpitest.Fatal(-1, "MPI_Init: %v", err)
	}
	rank = mpi.World().Rank()
	if mpi.World().Size() != 2 {
		fatalf("needs 2 ranks")
	}
	ctx := context.Background()
	kv, err := kvs.Open(ctx, *kvsURL)
	must(err, "open KVS")
	t, err := ucxtransport.Join(ctx, ucxtransport.Options{KV: kv, Namespace: *ns, Components: []string{"a"},
		Comm: mpi.World(), Timeout: 20 * time.Second, ChunkBytes: 256 << 10})
	must(err, "Join")
	for _, budget := range []time.Duration{time.Millisecond, 0} {
		exchange(t, budget)
	}
	incomplete(t)
	if err := drivecheck.Watched(t, t, t.Rank(), 1-t.Rank()); err != nil {
		failf("%v", err)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
	if err := drivecheck.Arrived(t, t.Rank(), 1-t.Rank()); err != nil {
		failf("%v", err)
	}
	must(mpi.Barrier(mpi.World()), "Barrier")
	must(t.Close(), "Close")
	kv.Close()
	mpi.Finalize()
	if !mpitest.Failed() {
		fmt.Printf("ok drive rank %d\n", rank)
	}
	mpitest.Exit()
}

// shape is the exchanged array: 48*64*64 float64, 1.5 MiB.
var shape = []int64{48, 64, 64}

type box = drivecheck.Box

// boxes returns two sets, each covering the array: eight slabs along the
// slowest dimension (contiguous; the last of 1.1 MiB travels in chunks)
// and a 2x4 tiling of the fast dimensions (strided: packed).
func boxes() [][]box {
	var slabs, tiles []box
	for i := range int64(7) {
		slabs = append(slabs, box{Start: []int64{2 * i, 0, 0}, Count: []int64{2, 64, 64}})
	}
	slabs = append(slabs, box{Start: []int64{14, 0, 0}, Count: []int64{34, 64, 64}})
	for j := range int64(2) {
		for k := range int64(4) {
			tiles = append(tiles, box{Start: []int64{0, 32 * j, 16 * k}, Count: []int64{48, 32, 16}})
		}
	}
	return [][]box{slabs, tiles}
}

// exchange moves every box to the peer (and the first slab to this rank
// itself), completes all operations with Drive calls of budget, and checks
// every element.
func exchange(t *ucxtransport.Transport, budget time.Duration) {
	peer := 1 - t.Rank()
	sets := boxes()
	x, err := drivecheck.Post(t, t.Rank(), peer, shape, sets)
	must(err, "Post")
	self := make([]float64, n3())
	slab := sets[0][0]
	p, err := t.RecvBlock(t.Rank(), x.Tag, drivecheck.Block(self, shape, slab))
	must(err, "RecvBlock from self")
	q, err := t.SendBlock(t.Rank(), x.Tag, drivecheck.Block(x.Src, shape, slab))
	must(err, "SendBlock to self")
	x.Ps = append(x.Ps, p, q)

	calls, err := x.Complete(t, budget, driveDeadline)
	must(err, "Complete")
	if err := x.Check(peer); err != nil {
		failf("budget %v: %v", budget, err)
	}
	for i := range int(slab.Count[0] * shape[1] * shape[2]) {
		if self[i] != x.Src[i] {
			failf("budget %v: block to self: element %d = %v, want %v", budget, i, self[i], x.Src[i])
			break
		}
	}
	if err := x.CheckDoneAgain(t); err != nil {
		failf("%v", err)
	}
	fmt.Printf("rank %d: budget %v: %d operations in %d Drive calls\n", t.Rank(), budget, len(x.Ps), calls)
	must(mpi.Barrier(mpi.World()), "Barrier")
}

// incomplete drives a set holding a receive nobody sends: Drive reports
// not done after about its budget, and the receive can be canceled.
func incomplete(t *ucxtransport.Transport) {
	peer := 1 - t.Rank()
	orphan, err := t.RecvBlock(peer, 999, drivecheck.Block(make([]float64, n3()), shape, box{Start: []int64{0, 0, 0}, Count: []int64{1, 1, 4}}))
	must(err, "RecvBlock")
	const budget = 5 * time.Millisecond
	start := time.Now()
	done, err := t.Drive([]transport.Pending{orphan}, budget, -1)
	if el := time.Since(start); done || err != nil || el < budget || el > budget+time.Second {
		failf("Drive on an unmatched receive: done=%v err=%v after %v, want false after about %v", done, err, el, budget)
	}
	if done, err := t.Drive([]transport.Pending{orphan}, 0, -1); done || err != nil {
		failf("Drive budget 0 on an unmatched receive: %v, %v", done, err)
	}
	must(orphan.Cancel(), "Cancel")
	must(mpi.Barrier(mpi.World()), "Barrier")
}

func n3() int { return int(shape[0] * shape[1] * shape[2]) }
