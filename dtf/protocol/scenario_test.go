package protocol

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// scripted returns a simulation of a fixed shape: 4 writers, 3 readers, 2
// matchers, every cycle the same pattern except the changes given, its
// deliveries ordered by seed.
func scripted(t *testing.T, seed int64, cycles, epochs int, wchg, rchg change, earlyFrom, earlyAt int) *sim {
	s := &sim{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 7)), chans: map[chanKey][]*simMsg{}, arrived: map[chanKey][]*simMsg{},
		dead: map[int]bool{}, killAt: -1, wchg: wchg, rchg: rchg, outcomes: map[int]map[string]int{},
		nW: 4, nR: 3, nM: 2, L: 24, cycles: cycles, epochs: epochs, rounds: 1, earlyFrom: earlyFrom, earlyAt: earlyAt,
		pat: make([]int, cycles)}
	s.build(rand.New(rand.NewPCG(1, 2)))
	return s
}

// TestReplayScenarios runs, under many delivery orders, the replay cases
// that once needed mpirun: the roles' replay outcomes per cycle are exact,
// every value read is the last one written, and nothing is left undrained.
func TestReplayScenarios(t *testing.T) {
	none := change{-1, -1}
	for _, tc := range []struct {
		name       string
		epochs     int
		wchg, rchg change
		early      [2]int // readers close after epoch [1] from cycle [0] on (-1: never)
		want       []map[string]int
	}{
		{"every cycle after the first hits", 1, none, none, [2]int{-1, 0}, []map[string]int{
			{"writer:miss": 4, "reader:miss": 3},
			{"writer:hit": 4, "reader:hit": 3},
			{"writer:hit": 4, "reader:hit": 3},
		}},
		// One reader changing its pattern misses alone: the writers and
		// the other readers still replay in that cycle.
		{"one reader changes", 1, none, change{1, 2}, [2]int{-1, 0}, []map[string]int{
			{"writer:miss": 4, "reader:miss": 3},
			{"writer:hit": 4, "reader:hit": 3},
			{"writer:hit": 4, "reader:hit": 2, "reader:miss": 1},
			{"writer:hit": 4, "reader:hit": 3},
		}},
		// One writer changing its pattern misses alone: the matchers take
		// the other writers' writes from their records and match every
		// round afresh, so the readers miss too; the next cycle hits again.
		{"one writer changes", 1, change{2, 2}, none, [2]int{-1, 0}, []map[string]int{
			{"writer:miss": 4, "reader:miss": 3},
			{"writer:hit": 4, "reader:hit": 3},
			{"writer:hit": 3, "writer:miss": 1, "reader:miss": 3},
			{"writer:hit": 4, "reader:hit": 3},
		}},
		// Readers that close the file epochs earlier than in the recorded
		// cycle are not pushed the later epochs' data: the writers learn
		// from the matchers that they closed, and keep replaying.
		{"readers close early", 3, none, none, [2]int{2, 1}, []map[string]int{
			{"writer:miss": 12, "reader:miss": 9},
			{"writer:hit": 12, "reader:hit": 9},
			{"writer:hit": 12, "reader:hit": 3},
			{"writer:hit": 12, "reader:hit": 3},
		}},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			for seed := range int64(200) {
				s := scripted(t, seed, len(tc.want), tc.epochs, tc.wchg, tc.rchg, tc.early[0], tc.early[1])
				s.run()
				s.verify()
				if len(s.errs) > 0 {
					t.Fatalf("delivery order %d: %s", seed, strings.Join(s.errs, "\n"))
				}
				for k, want := range tc.want {
					if got := s.outcomes[k]; !maps.Equal(got, want) {
						t.Fatalf("delivery order %d, cycle %d: outcomes %v, want %v", seed, k, got, want)
					}
				}
			}
		})
	}
}
