package mpitransport

import (
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
)

var _ transport.Driver = (*Transport)(nil)

// Drive completes ps with mpi.TestallFor: Open MPI moves large messages
// only inside MPI calls, and one C loop of MPI_Testall drives them for
// about budget without a cgo round trip per poll, probing for watched
// control messages between rounds. When all are complete
// (or one failed) their datatypes are freed. Every element of ps must be a Pending this
// transport returned; completed ones may appear again.
func (t *Transport) Drive(ps []transport.Pending, budget time.Duration, watch int) (bool, error) {
	reqs := make([]*mpi.Request, len(ps))
	for i, p := range ps {
		q, ok := p.(*pending)
		if !ok {
			return false, fmt.Errorf("mpitransport: Drive: operation %d is a %T, not one of this transport's", i, p)
		}
		reqs[i] = q.req
	}
	var w *mpi.Watch
	if watch >= 0 {
		w = &mpi.Watch{Comm: t.world, Tag: watch}
	}
	done, err := mpi.TestallFor(reqs, budget, w)
	if done || err != nil {
		// MPI keeps a freed type alive while operations still use it.
		for _, p := range ps {
			p.(*pending).free()
		}
	}
	return done, err
}
