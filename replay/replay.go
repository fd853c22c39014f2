// Package replay records the outcome of matching for a transfer epoch and
// recognises when a later epoch repeats it, so array coupling can skip request
// exchange and matching in iterative workflows. It is plain Go over plain
// data: signatures, keys and a bounded record store. The agreement step (all
// ranks must match their records) is the caller's: dtf's matchers make it
// from the hit flags that travel with each rank's requests.
package replay

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
)

// Key names a record: the [FILE] section, the session slot (session index
// modulo num_sessions, so a file per cycle reuses its records), the epoch
// within the session, and the round within the epoch (-1 for a writer's
// epoch-wide record).
type Key struct {
	Section int
	Slot    int
	Epoch   int
	Round   int
}

// Signer hashes a rank's requests for an epoch: variables, boxes, element
// types and the ranks involved, in call order.
type Signer struct {
	h   hash.Hash64
	buf [8]byte
}

// NewSigner returns an empty signature.
func NewSigner() *Signer { return &Signer{h: fnv.New64a()} }

// Add mixes integers into the signature.
func (s *Signer) Add(vals ...int64) {
	for _, v := range vals {
		binary.LittleEndian.PutUint64(s.buf[:], uint64(v))
		s.h.Write(s.buf[:])
	}
}

// AddInts mixes a list, length first, so that adjacent lists cannot alias.
func (s *Signer) AddInts(vals []int64) {
	s.Add(int64(len(vals)))
	s.Add(vals...)
}

// Sum returns the signature.
func (s *Signer) Sum() uint64 { return s.h.Sum64() }

// entry is a stored record with the signature it was made under.
type entry[T any] struct {
	sig uint64
	rec T
}

// Store holds at most one record per key. Keys are bounded by construction
// (sections x session slots x epochs x rounds of one cycle), and Forget drops
// a section's records, so memory stays flat over any number of cycles.
type Store[T any] struct {
	recs map[Key]entry[T]
}

// NewStore returns an empty store.
func NewStore[T any]() *Store[T] { return &Store[T]{recs: map[Key]entry[T]{}} }

// Put records rec under k with signature sig, replacing any older record.
func (s *Store[T]) Put(k Key, sig uint64, rec T) { s.recs[k] = entry[T]{sig, rec} }

// Lookup returns the record under k if its signature equals sig.
func (s *Store[T]) Lookup(k Key, sig uint64) (T, bool) {
	e, ok := s.recs[k]
	if !ok || e.sig != sig {
		var zero T
		return zero, false
	}
	return e.rec, true
}

// Get returns the record under k whatever its signature.
func (s *Store[T]) Get(k Key) (T, bool) {
	e, ok := s.recs[k]
	return e.rec, ok
}

// Forget drops every record of a section.
func (s *Store[T]) Forget(section int) {
	for k := range s.recs {
		if k.Section == section {
			delete(s.recs, k)
		}
	}
}

// Len returns the number of records held.
func (s *Store[T]) Len() int { return len(s.recs) }

// Outcome says how replay went for one epoch.
type Outcome int

// Outcomes.
const (
	Off  Outcome = iota // replay disabled for the section
	Miss                // some rank differed from its record (or none existed): full matching, re-recorded
	Hit                 // every rank matched: matching skipped
)

// String returns "off", "miss" or "hit".
func (o Outcome) String() string { return [...]string{"off", "miss", "hit"}[o] }

// Decide gives the outcome of a rank or a round: it replays only if replay
// is on and every record involved matched.
func Decide(enabled bool, allMatch bool) Outcome {
	switch {
	case !enabled:
		return Off
	case allMatch:
		return Hit
	}
	return Miss
}
