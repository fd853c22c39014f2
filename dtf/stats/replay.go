package stats

import "time"

// ReplayGap sets the matching time of the epochs replay served against that
// of the epochs it missed: with replay working, HitMatchMax is zero and below
// MissMatchMin.
type ReplayGap struct {
	Hits, Misses int           // epochs whose Replay() is "hit", "miss"
	HitMatchMax  time.Duration // largest Match over the hit epochs
	MissMatchMin time.Duration // smallest Match over the miss epochs
}

// CompareReplay gathers the ReplayGap of a run's epochs. Epochs with replay
// off or only partly hit are left out.
func CompareReplay(sums []Summary) ReplayGap {
	var g ReplayGap
	for _, s := range sums {
		switch s.Replay() {
		case string(Hit):
			g.Hits++
			g.HitMatchMax = max(g.HitMatchMax, s.Match)
		case string(Miss):
			if g.Misses == 0 || s.Match < g.MissMatchMin {
				g.MissMatchMin = s.Match
			}
			g.Misses++
		}
	}
	return g
}

// HitsFaster reports whether the run has hit and miss epochs and every hit
// epoch matched for less time than any miss epoch.
func (g ReplayGap) HitsFaster() bool {
	return g.Hits > 0 && g.Misses > 0 && g.HitMatchMax < g.MissMatchMin
}
