package ucxtransport

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/ucx"
)

// Join opens UCX, publishes this rank in the KVS and waits for every
// component to register. It is collective over o.Comm: every rank of the
// component returns an error if any of them fails.
func Join(ctx context.Context, o Options) (*Transport, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(o.Timeout)
	kctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	t := &Transport{o: o, eps: map[int]*ucx.Endpoint{}, inbox: map[int][]*inMsg{}}
	t.self.init()
	crank, csize := o.Comm.Rank(), o.Comm.Size()
	t.crank = crank
	name := o.Components[o.Comp]
	fail := func(err error) (*Transport, error) {
		t.release()
		return nil, err
	}

	addr, err := t.open()
	if err := agree(o.Comm, name, err); err != nil {
		return fail(err)
	}
	if crank == 0 {
		err = deleteStale(kctx, o.KV, compPrefix(o.Namespace, name))
	}
	if err := agree(o.Comm, name, err); err != nil {
		return fail(err)
	}
	t.published = true
	_, err = o.KV.Put(kctx, addrKey(o.Namespace, name, crank), addr)
	if err != nil {
		err = fmt.Errorf("ucxtransport: publish the address of %s rank %d: %w", name, crank, err)
	}
	// agree doubles as the barrier that orders every address before the size.
	if err := agree(o.Comm, name, err); err != nil {
		return fail(err)
	}
	if crank == 0 {
		if _, err = o.KV.Put(kctx, sizeKey(o.Namespace, name), []byte(strconv.Itoa(csize))); err != nil {
			err = fmt.Errorf("ucxtransport: publish the size of %s: %w", name, err)
		}
	}
	if err := agree(o.Comm, name, err); err != nil {
		return fail(err)
	}

	var sizes []int64
	if crank == 0 {
		sizes, err = waitSizes(kctx, o, csize)
	}
	if sizes, err = bcastResult(o.Comm, len(o.Components), sizes, err); err != nil {
		return fail(err)
	}
	t.layout(sizes, crank)
	return t, nil
}

// open creates the UCX context and worker and returns the worker address.
func (t *Transport) open() ([]byte, error) {
	var err error
	if t.ctx, err = ucx.NewContext(t.o.UCX); err != nil {
		return nil, fmt.Errorf("ucxtransport: %w", err)
	}
	if t.w, err = t.ctx.NewWorker(ucx.ThreadSerialized); err != nil {
		return nil, fmt.Errorf("ucxtransport: %w", err)
	}
	addr, err := t.w.Address()
	if err != nil {
		return nil, fmt.Errorf("ucxtransport: %w", err)
	}
	return addr, nil
}

// deleteStale removes keys a previous run left under prefix.
func deleteStale(ctx context.Context, kv kvs.KV, prefix string) error {
	es, _, err := kv.List(ctx, prefix)
	if err != nil {
		return fmt.Errorf("ucxtransport: list stale keys under %q: %w", prefix, err)
	}
	for _, e := range es {
		if err := kv.Delete(ctx, e.Key); err != nil {
			return fmt.Errorf("ucxtransport: delete stale key %q: %w", e.Key, err)
		}
	}
	return nil
}

// waitSizes waits for every component's size key (rank 0 only).
func waitSizes(ctx context.Context, o Options, own int) ([]int64, error) {
	sizes := make([]int64, len(o.Components))
	for c, name := range o.Components {
		if c == o.Comp {
			sizes[c] = int64(own)
			continue
		}
		key := sizeKey(o.Namespace, name)
		val, err := kvs.WaitCreate(ctx, o.KV, key, 0)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("ucxtransport: component %q did not register within %v (no key %q): %w",
					name, o.Timeout, key, kvs.ErrTimeout)
			}
			return nil, fmt.Errorf("ucxtransport: waiting for component %q: %w", name, err)
		}
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("ucxtransport: component %q published a bad size %q under %q", name, val, key)
		}
		sizes[c] = n
	}
	var total int64
	for _, n := range sizes {
		total += n
	}
	if total > maxRanks {
		return nil, fmt.Errorf("ucxtransport: %d ranks in all: at most 2^32 fit in a tag", total)
	}
	return sizes, nil
}

// layout numbers the ranks: components concatenated in config order.
func (t *Transport) layout(sizes []int64, crank int) {
	t.comps = make([][]int, len(sizes))
	t.compOf = nil
	for c, n := range sizes {
		for range n {
			g := len(t.compOf)
			t.comps[c] = append(t.comps[c], g)
			t.compOf = append(t.compOf, c)
		}
	}
	t.rank = t.comps[t.o.Comp][crank]
}

// agree makes a local outcome collective: every rank fails if any did.
func agree(comm mpi.Comm, name string, err error) error {
	flag := []int64{0}
	if err != nil {
		flag[0] = 1
	}
	all := []int64{0}
	if cerr := mpi.Allreduce(comm, flag, all, mpi.Max); cerr != nil {
		return errors.Join(err, fmt.Errorf("ucxtransport: allreduce in component %q: %w", name, cerr))
	}
	if err != nil {
		return err
	}
	if all[0] != 0 {
		return fmt.Errorf("ucxtransport: join failed on another rank of component %q", name)
	}
	return nil
}

// bcastResult hands rank 0's sizes, or its error text, to every rank.
func bcastResult(comm mpi.Comm, n int, sizes []int64, err error) ([]int64, error) {
	var msg []byte
	hdr := make([]int64, n+1)
	if comm.Rank() == 0 {
		if err != nil {
			msg = []byte(err.Error())
			if errors.Is(err, kvs.ErrTimeout) {
				hdr[0] = 1
			}
		} else {
			copy(hdr, sizes)
		}
		hdr[n] = int64(len(msg))
	}
	if cerr := mpi.Bcast(comm, hdr, 0); cerr != nil {
		return nil, fmt.Errorf("ucxtransport: bcast component sizes: %w", cerr)
	}
	if hdr[n] == 0 {
		return hdr[:n], nil
	}
	if comm.Rank() != 0 {
		msg = make([]byte, hdr[n])
	}
	if cerr := mpi.Bcast(comm, msg, 0); cerr != nil {
		return nil, fmt.Errorf("ucxtransport: bcast join error: %w", cerr)
	}
	if err != nil {
		return nil, err // rank 0 keeps its error chain (errors.Is works)
	}
	return nil, &rootErr{msg: string(msg), timeout: hdr[0] == 1}
}

// rootErr is rank 0's join error as seen by the other ranks: its text, and
// whether it was a timeout (then it wraps kvs.ErrTimeout).
type rootErr struct {
	msg     string
	timeout bool
}

func (e *rootErr) Error() string { return e.msg }

func (e *rootErr) Unwrap() error {
	if e.timeout {
		return kvs.ErrTimeout
	}
	return nil
}
