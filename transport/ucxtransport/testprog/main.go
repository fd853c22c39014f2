// Command testprog is one component of the ucxtransport tests: the tests
// launch it as separate mpiruns that join through the KVS and exchange
// control messages and 3-D sub-blocks over UCX, checking every byte.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs"
	_ "github.com/couplet-hpc/couplet/kvs/etcdkv"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

var (
	kvsURL  = flag.String("kvs", "", "KVS URL (etcd://host:port)")
	ns      = flag.String("ns", "", "namespace")
	comps   = flag.String("comps", "a,b", "component names")
	comp    = flag.Int("comp", 0, "this component's index")
	sizes   = flag.String("sizes", "", "expected component sizes, e.g. 2,3")
	timeout = flag.Duration("timeout", 20*time.Second, "join timeout")
	chunk   = flag.Int64("chunk", 64<<10, "ChunkBytes")
	missing = flag.String("expect-missing", "", "expect Join to time out naming this component")
	reads   = flag.Int("single-reads", -1, "blocks this rank must receive by single-copy reads in the blocks phases (-1: no check); above 0 the errors phase adds single-copy cases")
	refused = flag.Int("single-refused", -1, "blocks this rank must receive through UCX after a refused single-copy read in the blocks phases (-1: no check)")
	undump  = flag.Bool("undumpable", false, "make this process non-dumpable after Join: without CAP_SYS_PTRACE, peers are then refused single-copy reads of its memory")
)

// phaseTimeout bounds every exchange phase (longer with -big).
var phaseTimeout = 30 * time.Second

var rank int // rank in the component's communicator, for failure lines

func main() {
	flag.Parse()
	if *bigBytes > 0 {
		phaseTimeout = 3 * time.Minute
	}
	if err := mpi.Init(); err != nil {
		mpitest.Fatal(-1, "MPI_Init: %v", err)
	}
	rank = mpi.World().Rank()
	run()
	mpi.Finalize()
	mpitest.Exit()
}

func run() {
	ctx := context.Background()
	kv, err := kvs.Open(ctx, *kvsURL)
	if err != nil {
		mpitest.Fatal(rank, "open KVS: %v", err)
	}
	defer kv.Close()
	o := ucxtransport.Options{KV: kv, Namespace: *ns, Components: strings.Split(*comps, ","), Comp: *comp,
		Comm: mpi.World(), Timeout: *timeout, ChunkBytes: *chunk}
	start := time.Now()
	t, err := ucxtransport.Join(ctx, o)
	if *missing != "" {
		checkTimeout(err, time.Since(start))
		return
	}
	if err != nil {
		mpitest.Fatal(rank, "join: %v", err)
	}
	fmt.Printf("joined as rank %d of %d in %v: %v\n", t.Rank(), t.Size(), time.Since(start).Round(time.Millisecond), t.Components())
	checkLayout(t)
	if *vanish || *afterVanish {
		hello(t)
	}
	if *undump {
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
			mpitest.Fatal(rank, "prctl: %v", err)
		}
	}
	switch {
	case *vanish:
		vanishNow(kv, t)
	case *afterVanish:
		sendToVanished(kv, t)
		return
	}
	phase(t, "control messages", controlMessages)
	phase(t, "blocks", blocks)
	phase(t, "mixed blocks", mixedBlocks)
	if n := t.SingleCopyReads(); *reads >= 0 && n != int64(*reads) {
		mpitest.Fatal(rank, "%d blocks came by single-copy reads, want %d", n, *reads)
	}
	if n := t.SingleCopyRefused(); *refused >= 0 && n != int64(*refused) {
		mpitest.Fatal(rank, "%d blocks came through UCX after a refused read, want %d", n, *refused)
	}
	phase(t, "errors", errorCases)
	if *bigBytes > 0 {
		phase(t, "big block", bigBlock)
	}
	phase(t, "goodbye", goodbye)
	if err := t.Close(); err != nil {
		mpitest.Fail(rank, "close: %v", err)
	}
}

// checkTimeout verifies the error of a Join whose peer never starts.
func checkTimeout(err error, took time.Duration) {
	switch {
	case err == nil:
		mpitest.Fatal(rank, "join succeeded, want a timeout naming %q", *missing)
	case !strings.Contains(err.Error(), fmt.Sprintf("component %q", *missing)):
		mpitest.Fail(rank, "join error does not name component %q: %v", *missing, err)
	case !errors.Is(err, kvs.ErrTimeout):
		mpitest.Fail(rank, "join error is not a timeout: %v", err)
	// Rank 0 owns the deadline and waits it out; gRPC passes it to etcd as
	// a truncated timeout, so the server may end the call a fraction of a
	// millisecond early. The other ranks learn the outcome from rank 0, and
	// may have entered Join later than it did on a crowded node.
	case rank == 0 && took < *timeout-10*time.Millisecond, took > *timeout+5*time.Second:
		mpitest.Fail(rank, "join failed after %v, want about %v", took, *timeout)
	}
	fmt.Printf("join timed out after %v: %v\n", took.Round(time.Millisecond), err)
}

func checkLayout(t *ucxtransport.Transport) {
	var want [][]int
	g := 0
	for _, s := range strings.Split(*sizes, ",") {
		n, _ := strconv.Atoi(s)
		var c []int
		for range n {
			c = append(c, g)
			g++
		}
		want = append(want, c)
	}
	if got := fmt.Sprint(t.Components()); got != fmt.Sprint(want) {
		mpitest.Fatal(rank, "components %s, want %v", got, want)
	}
	if t.Size() != g || t.Rank() != want[*comp][rank] {
		mpitest.Fatal(rank, "rank %d of %d, want %d of %d", t.Rank(), t.Size(), want[*comp][rank], g)
	}
}

func phase(t *ucxtransport.Transport, name string, f func(*ucxtransport.Transport)) {
	start := time.Now()
	f(t)
	fmt.Printf("rank %d: %s ok in %v\n", t.Rank(), name, time.Since(start).Round(time.Millisecond))
}

// poll calls step until it reports done, sleeping with back-off between
// tries (never spinning), and fails after phaseTimeout.
func poll(what string, step func() (bool, error)) {
	deadline := time.Now().Add(phaseTimeout)
	sleep := 20 * time.Microsecond
	for {
		done, err := step()
		if err != nil {
			mpitest.Fatal(rank, "%s: %v", what, err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			mpitest.Fatal(rank, "%s: not done after %v", what, phaseTimeout)
		}
		time.Sleep(sleep)
		sleep = min(2*sleep, 2*time.Millisecond)
	}
}

// testAll tests every pending operation and reports whether all are done.
func testAll(ps []transport.Pending) (bool, error) {
	all := true
	for _, p := range ps {
		done, err := p.Test()
		if err != nil {
			return false, err
		}
		all = all && done
	}
	return all, nil
}
