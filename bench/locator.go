package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
)

// LocatorPoint is case 5 at one locator level: the latency of one lookup.
type LocatorPoint struct {
	Level   string `json:"level"`   // "local", "agent" or "kvs"
	Lookups int    `json:"lookups"` // lookups per repetition
	Reps    int    `json:"reps"`
	// Median is the summary over repetitions of each repetition's median
	// lookup time, in microseconds; P90 likewise for the 90th percentile.
	Median Summary `json:"median_us"`
	P90    Summary `json:"p90_us"`
}

// LocatorLevels are the levels case 5 measures, fastest first.
var LocatorLevels = []dyad.Level{dyad.LevelLocal, dyad.LevelAgent, dyad.LevelKVS}

// MeasureLocator times lookups at every locator level on the rpc pair's
// consumer: a file is produced and consumed once, so that it is found in
// the local directory, in the consumer agent's cache and in etcd. Each
// repetition does lookups lookups per level (levels take turns) and keeps
// their median and 90th percentile.
func (s *StagingRun) MeasureLocator(lookups, reps int) ([]LocatorPoint, error) {
	p := s.pairs[StageRPC]
	const name = "locator.bin"
	f, err := p.prod.client.Create(name)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(make([]byte, 4096)); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if _, err := p.cons.client.Consume(name); err != nil {
		return nil, fmt.Errorf("bench: locator file: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	med := make([][]float64, len(LocatorLevels))
	p90 := make([][]float64, len(LocatorLevels))
	for rep := 0; rep <= reps; rep++ {
		for i, l := range LocatorLevels {
			lat := make([]float64, 0, lookups)
			for range lookups {
				t0 := time.Now()
				_, ok, err := p.cons.client.LookupLevel(ctx, l, name, 0)
				d := time.Since(t0)
				if err != nil || !ok {
					return nil, fmt.Errorf("bench: locator level %v: found %v, %v", l, ok, err)
				}
				lat = append(lat, float64(d.Nanoseconds())/1e3)
			}
			if rep == 0 {
				continue // warm-up
			}
			slices.Sort(lat)
			med[i] = append(med[i], Summarize(lat).Median)
			p90[i] = append(p90[i], lat[len(lat)*9/10])
		}
	}
	out := make([]LocatorPoint, len(LocatorLevels))
	for i, l := range LocatorLevels {
		out[i] = LocatorPoint{Level: l.String(), Lookups: lookups, Reps: reps, Median: Summarize(med[i]), P90: Summarize(p90[i])}
	}
	return out, nil
}
