package transport

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
	"github.com/couplet-hpc/couplet/mpi"
)

// Launch is how the coupled components were started. It is a setting of its own,
// apart from the wire a transport speaks: it decides whether the components share an
// MPI world and how ranks find each other.
type Launch string

// Launch modes.
const (
	// LaunchMPMD: one mpirun starts every component; they share MPI_COMM_WORLD.
	LaunchMPMD Launch = "mpmd"
	// LaunchSeparate: each component is its own launch with its own
	// MPI_COMM_WORLD; ranks meet through the KVS.
	LaunchSeparate Launch = "separate"
)

// Setup is what a transport needs to join a coupled run. Joining is collective over
// Comm (and, under LaunchMPMD, over MPI_COMM_WORLD).
type Setup struct {
	Launch     Launch
	Components []string // component names in config order
	Comp       int      // this process's component index
	// Comm is this component's own communicator: the world split by component
	// under LaunchMPMD, a duplicate of MPI_COMM_WORLD under LaunchSeparate.
	Comm mpi.Comm
	// KV and Namespace are where ranks meet when the transport needs a
	// rendezvous (nil KV: none is available). Namespace is unique per run.
	KV        kvs.KV
	Namespace string
	// Timeout bounds the wait for the other components, here and at Close.
	Timeout time.Duration
}

// Opener joins a coupled run over one wire.
type Opener func(ctx context.Context, s Setup) (Transport, error)

var (
	mu      sync.Mutex
	openers = map[string]Opener{}
)

// Register makes a transport available to Open under name. Implementations call it
// from init, so a program links the transports it imports (as database/sql drivers).
// Registering a nil opener or one name twice panics.
func Register(name string, o Opener) {
	mu.Lock()
	defer mu.Unlock()
	if o == nil {
		panic("transport: Register opener is nil for " + name)
	}
	if _, dup := openers[name]; dup {
		panic("transport: Register called twice for " + name)
	}
	openers[name] = o
}

// Names returns the registered transports, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	var ns []string
	for n := range openers {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Open joins the run over the transport registered as name.
func Open(ctx context.Context, name string, s Setup) (Transport, error) {
	mu.Lock()
	o, ok := openers[name]
	mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("transport: %q is not linked into this program (linked: %v); import its package, or transport/all for every one", name, Names())
	}
	if s.Comp < 0 || s.Comp >= len(s.Components) {
		return nil, fmt.Errorf("transport: component index %d outside the %d components %v", s.Comp, len(s.Components), s.Components)
	}
	return o(ctx, s)
}
