// Package rendezvous is how separately launched ranks find each other through the KVS.
// Every rank publishes its address under a per-run namespace; rank 0 of each component
// then publishes the component's size, last, so a size means every address of the
// component is there. Each rank learns the layout (ranks numbered across the components,
// concatenated in config order) and looks peers' addresses up when it first needs them.
// Transports that need a rendezvous share this code; what an address means is theirs.
package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
)

// maxRanks is the most ranks a run may have: transports put a rank in 32 bits.
const maxRanks = 1 << 32

// cleanupTimeout bounds Leave's deletes.
const cleanupTimeout = 5 * time.Second

// Options say where and as whom a rank meets the others.
type Options struct {
	KV         kvs.KV        // the store
	Namespace  string        // key prefix unique to the run, e.g. "couplet/dtf/<job>"
	Components []string      // component names in config order
	Comp       int           // this rank's component index
	Comm       mpi.Comm      // this component's own communicator
	Timeout    time.Duration // how long to wait for the other components
}

// Directory is a rank's view of the run: the layout, and its peers' addresses.
type Directory struct {
	o         Options
	crank     int     // rank in the component's communicator
	comps     [][]int // each component's ranks, in component-rank order
	compOf    []int   // component index of every rank
	rank      int     // this rank across the run
	published bool    // this rank's keys may exist and Leave must delete them
}

// CompPrefix is the key prefix of everything component name publishes.
func CompPrefix(ns, name string) string { return ns + "/" + kvs.EscapeSegment(name) + "/" }

// AddrKey holds the address of component-local rank of name.
func AddrKey(ns, name string, rank int) string {
	return fmt.Sprintf("%saddr/%d", CompPrefix(ns, name), rank)
}

// SizeKey holds the number of ranks of component name; it is written last.
func SizeKey(ns, name string) string { return CompPrefix(ns, name) + "size" }

// Join publishes addr for this rank and waits up to o.Timeout for every component to
// register. localErr is the outcome of this rank's preparation (such as opening its
// network): Join is collective over o.Comm, so every rank of the component fails if any
// rank's preparation or publication did. On failure nothing stays published.
func Join(ctx context.Context, o Options, addr []byte, localErr error) (*Directory, error) {
	d := &Directory{o: o}
	if err := d.check(); err != nil {
		return nil, errors.Join(localErr, err)
	}
	kctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	crank, csize := o.Comm.Rank(), o.Comm.Size()
	d.crank = crank
	name := o.Components[o.Comp]
	fail := func(err error) (*Directory, error) {
		return nil, errors.Join(err, d.Leave())
	}
	if err := agree(o.Comm, name, localErr); err != nil {
		return nil, err
	}
	var err error
	if crank == 0 {
		err = deleteStale(kctx, o.KV, CompPrefix(o.Namespace, name))
	}
	if err := agree(o.Comm, name, err); err != nil {
		return nil, err
	}
	d.published = true
	if _, err = o.KV.Put(kctx, AddrKey(o.Namespace, name, crank), addr); err != nil {
		err = fmt.Errorf("rendezvous: publish the address of %s rank %d: %w", name, crank, err)
	}
	// agree doubles as the barrier that orders every address before the size.
	if err := agree(o.Comm, name, err); err != nil {
		return fail(err)
	}
	if crank == 0 {
		if _, err = o.KV.Put(kctx, SizeKey(o.Namespace, name), []byte(strconv.Itoa(csize))); err != nil {
			err = fmt.Errorf("rendezvous: publish the size of %s: %w", name, err)
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
	d.layout(sizes)
	return d, nil
}

// check validates the options; every rank of a component sees the same options, so all
// fail alike.
func (d *Directory) check() error {
	o := &d.o
	switch {
	case o.KV == nil:
		return errors.New("rendezvous: no KVS")
	case o.Namespace == "":
		return errors.New("rendezvous: empty namespace")
	case o.Comp < 0 || o.Comp >= len(o.Components):
		return fmt.Errorf("rendezvous: component index %d outside the %d components %v", o.Comp, len(o.Components), o.Components)
	case o.Comm.IsNull():
		return errors.New("rendezvous: null communicator")
	case o.Timeout <= 0:
		return fmt.Errorf("rendezvous: timeout %v is not positive", o.Timeout)
	}
	seen := map[string]bool{}
	for _, c := range o.Components {
		if seen[c] {
			return fmt.Errorf("rendezvous: component %q listed twice in %v", c, o.Components)
		}
		seen[c] = true
	}
	return nil
}

// Rank is this rank's number across the run.
func (d *Directory) Rank() int { return d.rank }

// Size is the number of ranks across the run.
func (d *Directory) Size() int { return len(d.compOf) }

// Components returns each component's ranks, in config order.
func (d *Directory) Components() [][]int { return d.comps }

// Describe names a rank by component, for error messages.
func (d *Directory) Describe(rank int) string {
	if rank < 0 || rank >= d.Size() {
		return fmt.Sprintf("unknown rank %d", rank)
	}
	c := d.compOf[rank]
	return fmt.Sprintf("rank %d (%s rank %d)", rank, d.o.Components[c], rank-d.comps[c][0])
}

// Lookup returns the address rank published, waiting at most the timeout for the store.
func (d *Directory) Lookup(rank int) ([]byte, error) {
	if rank < 0 || rank >= d.Size() {
		return nil, fmt.Errorf("rendezvous: rank %d outside [0, %d)", rank, d.Size())
	}
	c := d.compOf[rank]
	key := AddrKey(d.o.Namespace, d.o.Components[c], rank-d.comps[c][0])
	ctx, cancel := context.WithTimeout(context.Background(), d.o.Timeout)
	defer cancel()
	addr, found, _, err := d.o.KV.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("rendezvous: look up %s: %w", d.Describe(rank), err)
	}
	if !found {
		return nil, fmt.Errorf("rendezvous: %s has no address under %q (it has closed)", d.Describe(rank), key)
	}
	return addr, nil
}

// Leave deletes this rank's keys (rank 0 of a component also its size). It is safe to
// call more than once.
func (d *Directory) Leave() error {
	if d == nil || !d.published {
		return nil
	}
	d.published = false
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	name := d.o.Components[d.o.Comp]
	keys := []string{AddrKey(d.o.Namespace, name, d.crank)}
	if d.crank == 0 {
		keys = append(keys, SizeKey(d.o.Namespace, name))
	}
	var errs []error
	for _, k := range keys {
		if err := d.o.KV.Delete(ctx, k); err != nil {
			errs = append(errs, fmt.Errorf("rendezvous: delete key %q: %w", k, err))
		}
	}
	return errors.Join(errs...)
}

// layout numbers the ranks: components concatenated in config order.
func (d *Directory) layout(sizes []int64) {
	d.comps = make([][]int, len(sizes))
	d.compOf = nil
	for c, n := range sizes {
		for range n {
			g := len(d.compOf)
			d.comps[c] = append(d.comps[c], g)
			d.compOf = append(d.compOf, c)
		}
	}
	d.rank = d.comps[d.o.Comp][d.crank]
}
