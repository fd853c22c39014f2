package agent

import (
	"context"
	"fmt"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/wire"
)

// dtlDriver is one data transport layer: how this agent fetches a file from the
// owner's agent. Each layer registers itself from its own file's init, so the
// agent chooses by name rather than by a chain of ifs.
type dtlDriver struct {
	// start, if set, readies the layer when the agent starts with it as its
	// default, so a bad setting fails the start rather than the first fetch.
	start func(a *Agent) error
	// fetch copies meta's file to its target and returns the bytes copied.
	fetch func(a *Agent, ctx context.Context, meta *wire.Meta, to target) (int64, error)
}

var dtls = map[dyad.DTL]dtlDriver{}

// target is where a staging puts its copy (dest) and, where the copy cannot carry its
// record (dyad.StagedAttr), the record (side, the sidecar).
type target struct{ dest, side string }

// registerDTL makes a layer available under name; a second registration panics.
func registerDTL(name dyad.DTL, d dtlDriver) {
	if _, dup := dtls[name]; dup {
		panic(fmt.Sprintf("agent: DTL %q registered twice", name))
	}
	dtls[name] = d
}

// dtlFor returns the registered layer name, or an error naming the ones there are.
func dtlFor(name dyad.DTL) (dtlDriver, error) {
	d, ok := dtls[name]
	if !ok {
		return dtlDriver{}, fmt.Errorf("agent: DTL %q is not available in this agent", name)
	}
	return d, nil
}

// fetchDTL fetches meta's file to its target over dtl (the consumer's choice, else the agent's).
func (a *Agent) fetchDTL(ctx context.Context, dtl dyad.DTL, meta *wire.Meta, to target) (int64, error) {
	d, err := dtlFor(dtl)
	if err != nil {
		return 0, err
	}
	return d.fetch(a, ctx, meta, to)
}
