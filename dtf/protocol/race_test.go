//go:build race

package protocol

// raceEnabled: the race detector slows the simulation tenfold, so it runs
// fewer seeds by default.
const raceEnabled = true
