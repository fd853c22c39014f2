package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

var (
	vanish      = flag.Bool("vanish", false, "exit after Join without Close, as a crashed peer")
	afterVanish = flag.Bool("after-vanish", false, "send to the vanished component, then Close")
)

// closeBound is how long Close may take with a vanished peer: its flush
// and endpoint close budgets plus slack.
const closeBound = 15 * time.Second

// hello connects the two components before one vanishes, so endpoints to
// the vanished ranks exist and may hold data when it goes.
func hello(t *ucxtransport.Transport) {
	others := t.Components()[1-*comp]
	var ps []transport.Pending
	for _, g := range others {
		p, err := t.Send(g, 2, []byte("hello"))
		if err != nil {
			mpitest.Fatal(rank, "hello to %d: %v", g, err)
		}
		ps = append(ps, p)
	}
	got := 0
	poll("hello", func() (bool, error) {
		for {
			_, ok, err := t.TryRecv(2)
			if err != nil || !ok {
				break
			}
			got++
		}
		sent, err := testAll(ps)
		return sent && got == len(others), err
	})
}

// vanishNow leaves as a crashed peer would: no Close, keys left behind.
func vanishNow(kv kvs.KV, t *ucxtransport.Transport) {
	mpi.Finalize()
	if _, err := kv.Put(context.Background(), fmt.Sprintf("%s/vanished/%d", *ns, t.Rank()), nil); err != nil {
		mpitest.Fatal(rank, "put: %v", err)
	}
	os.Exit(0)
}

// sendToVanished waits until the other component is gone, sends it a small
// and a large message, and checks that Close still returns in time.
func sendToVanished(kv kvs.KV, t *ucxtransport.Transport) {
	gone := t.Components()[1-*comp]
	for _, g := range gone {
		if _, err := kvs.WaitCreate(context.Background(), kv, fmt.Sprintf("%s/vanished/%d", *ns, g), phaseTimeout); err != nil {
			mpitest.Fatal(rank, "%v", err)
		}
	}
	time.Sleep(300 * time.Millisecond) // let the processes exit
	var ps []transport.Pending
	for _, g := range gone {
		for _, n := range []int{10, 2 << 20} {
			p, err := t.Send(g, 1, make([]byte, n))
			fmt.Printf("send %d bytes to vanished rank %d: %v\n", n, g, err)
			if err == nil {
				ps = append(ps, p)
			}
		}
	}
	for _, p := range ps {
		p.Test()
	}
	start := time.Now()
	err := t.Close()
	took := time.Since(start)
	fmt.Printf("close with a vanished peer took %v: %v\n", took.Round(time.Millisecond), err)
	if took > closeBound {
		mpitest.Fail(rank, "close took %v with a vanished peer, want at most %v", took, closeBound)
	}
}
