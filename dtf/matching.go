package dtf

import (
	"time"

	"github.com/couplet-hpc/couplet/dtf/protocol"
)

// newMatcher builds this rank's matcher role (dtf/protocol.Matcher), which
// the engine drives with the requests it receives.
func (e *engine) newMatcher() *protocol.Matcher {
	return protocol.NewMatcher(protocol.MatcherConfig{
		Self: e.tr.Rank(), IDs: e.tags.IDs, TagUB: e.tags.UB,
		Matchers: e.cfg.MatcherCount, Slot: e.slotOf,
	})
}

// onMatcherMsg hands writers' and readers' requests to the matcher role and
// sends what it answers. The time of the steps that matched rounds counts as
// the matching time of the session's epoch, reported by the writer rank that
// hosts the matcher; steps that only keep books (a replayed epoch) count none.
func (e *engine) onMatcherMsg(m *envelope) error {
	start := time.Now()
	r, err := e.mt.Step(m)
	key := keyOf(m)
	if r.Matched > 0 {
		d := time.Since(start)
		e.matchTime[key] += d
		e.traceMatch(m, r.Matched, d)
	}
	for _, s := range r.Sends {
		if err := e.send(s.To, s.Msg); err != nil {
			return err
		}
	}
	for _, d := range r.Done {
		k := sessKey{d.Path, d.Session}
		if f := e.files[d.Path]; f != nil && f.session == d.Session && f.role == roleWriter {
			f.st.MatchTime += e.matchTime[k]
		}
		delete(e.matchTime, k)
	}
	return err
}
