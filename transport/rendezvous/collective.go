package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
)

// deleteStale removes keys a previous run left under prefix.
func deleteStale(ctx context.Context, kv kvs.KV, prefix string) error {
	es, _, err := kv.List(ctx, prefix)
	if err != nil {
		return fmt.Errorf("rendezvous: list stale keys under %q: %w", prefix, err)
	}
	for _, e := range es {
		if err := kv.Delete(ctx, e.Key); err != nil {
			return fmt.Errorf("rendezvous: delete stale key %q: %w", e.Key, err)
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
		key := SizeKey(o.Namespace, name)
		val, err := kvs.WaitCreate(ctx, o.KV, key, 0)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("rendezvous: component %q did not register within %v (no key %q): %w",
					name, o.Timeout, key, kvs.ErrTimeout)
			}
			return nil, fmt.Errorf("rendezvous: waiting for component %q: %w", name, err)
		}
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("rendezvous: component %q published a bad size %q under %q", name, val, key)
		}
		sizes[c] = n
	}
	var total int64
	for _, n := range sizes {
		total += n
	}
	if total > maxRanks {
		return nil, fmt.Errorf("rendezvous: %d ranks in all: at most 2^32 fit in a tag", total)
	}
	return sizes, nil
}

// agree makes a local outcome collective: every rank fails if any did.
func agree(comm mpi.Comm, name string, err error) error {
	flag := []int64{0}
	if err != nil {
		flag[0] = 1
	}
	all := []int64{0}
	if cerr := mpi.Allreduce(comm, flag, all, mpi.Max); cerr != nil {
		return errors.Join(err, fmt.Errorf("rendezvous: allreduce in component %q: %w", name, cerr))
	}
	if err != nil {
		return err
	}
	if all[0] != 0 {
		return fmt.Errorf("rendezvous: join failed on another rank of component %q", name)
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
		return nil, fmt.Errorf("rendezvous: bcast component sizes: %w", cerr)
	}
	if hdr[n] == 0 {
		return hdr[:n], nil
	}
	if comm.Rank() != 0 {
		msg = make([]byte, hdr[n])
	}
	if cerr := mpi.Bcast(comm, msg, 0); cerr != nil {
		return nil, fmt.Errorf("rendezvous: bcast join error: %w", cerr)
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
