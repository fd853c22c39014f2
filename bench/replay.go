package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/internal/mpilaunch"
)

// CyclesProg is the import path of the case-3 helper program.
const CyclesProg = "github.com/couplet-hpc/couplet/bench/progs/cycles"

// Replay modes of case 3.
const (
	ReplayOn  = "on"  // replay_io = 1
	ReplayOff = "off" // replay_io = 0
)

// ReplayModes lists the case-3 modes in table order.
var ReplayModes = []string{ReplayOn, ReplayOff}

// CyclesConfig is the dtf config of the helper: two sections identical but
// for replay_io; %s is the statistics path.
const CyclesConfig = `[INFO]
ncomp = 2
comp_name = w
comp_name = r
buffer_data = 0
timeout = 300
stats_path = %s

[FILE]
filename = on_cycle_%%.nc
comp1 = w
comp2 = r
mode = transfer
replay_io = 1

[FILE]
filename = off_cycle_%%.nc
comp1 = w
comp2 = r
mode = transfer
replay_io = 0
`

// ReplayWorkload shapes case 3.
type ReplayWorkload struct {
	Cycles  int   `json:"cycles"` // cycles per mode, the first recording
	NVars   int   `json:"nvars"`
	NZ      int64 `json:"nz"`
	NY      int64 `json:"ny"`
	NX      int64 `json:"nx"`
	WBlocks int64 `json:"wblocks"` // puts per variable per writer
}

// ReplayResult is case 3: cycles 1..N-1 of each mode (cycle 0 records).
type ReplayResult struct {
	Workload ReplayWorkload `json:"workload"`
	Bytes    int64          `json:"bytes"`    // per cycle
	Writes   int64          `json:"writes"`   // put requests per cycle, all writers
	Reads    int64          `json:"reads"`    // get requests per cycle, all readers
	Measured int            `json:"measured"` // cycles measured per mode
	// By mode: whole-cycle seconds between world barriers, and the
	// statistics' slowest-rank match and transfer times in seconds.
	Seconds  map[string]Summary `json:"seconds"`
	Match    map[string]Summary `json:"match_s"`
	Transfer map[string]Summary `json:"transfer_s"`
	// Hits and Misses count the per-rank replay outcomes of the measured
	// cycles, by mode and role ("on/writer").
	Hits   map[string]int `json:"hits"`
	Misses map[string]int `json:"misses"`
	// OffVsOn is the median cycle time off / on (> 1: replay is faster).
	OffVsOn float64 `json:"off_vs_on"`
}

var cycleRE = regexp.MustCompile(`CYCLE mode=(on|off) cycle=(\d+) bytes=(\d+) seconds=([0-9.eE+-]+) ok=1`)
var cycleFileRE = regexp.MustCompile(`(on|off)_cycle_(\d+)\.nc$`)

// RunReplay runs case 3 in one MPMD launch of the helper bin.
func RunReplay(bin string, w ReplayWorkload, env []string, timeout time.Duration) (*ReplayResult, error) {
	dir, err := os.MkdirTemp("", "couplet-bench-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	statsPath := filepath.Join(dir, "stats.jsonl")
	cfg := filepath.Join(dir, "cycles.ini")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(CyclesConfig, statsPath)), 0o644); err != nil {
		return nil, err
	}
	args := []string{"-cfg", cfg, "-dir", dir, "-cycles", strconv.Itoa(w.Cycles), "-nvars", strconv.Itoa(w.NVars),
		"-nz", strconv.FormatInt(w.NZ, 10), "-ny", strconv.FormatInt(w.NY, 10), "-nx", strconv.FormatInt(w.NX, 10),
		"-wblocks", strconv.FormatInt(w.WBlocks, 10)}
	r := mpilaunch.LaunchWith(timeout, launchEnv, mpilaunch.App{NP: Writers, Prog: bin, Args: args, Env: env}, mpilaunch.App{NP: Readers, Prog: bin, Args: args, Env: env})
	if r.Err != nil {
		return nil, launchError("replay cycles", r)
	}
	recs, err := stats.ReadFile(statsPath)
	if err != nil {
		return nil, err
	}
	return ParseReplay(r.Output, recs, w)
}

// ParseReplay reads the helper's CYCLE lines and the statistics records.
func ParseReplay(out string, recs []stats.Record, w ReplayWorkload) (*ReplayResult, error) {
	res := &ReplayResult{Workload: w, Seconds: map[string]Summary{}, Match: map[string]Summary{}, Transfer: map[string]Summary{},
		Hits: map[string]int{}, Misses: map[string]int{}}
	res.Writes = int64(w.NVars) * w.WBlocks * Writers
	res.Reads = int64(w.NVars) * w.NZ * Readers
	secs := map[string][]float64{}
	for _, m := range cycleRE.FindAllStringSubmatch(out, -1) {
		if m[2] == "0" || m[2] == "000" {
			continue // the recording cycle
		}
		res.Bytes, _ = strconv.ParseInt(m[3], 10, 64)
		s, _ := strconv.ParseFloat(m[4], 64)
		secs[m[1]] = append(secs[m[1]], s)
	}
	if len(secs[ReplayOn]) == 0 || len(secs[ReplayOn]) != len(secs[ReplayOff]) {
		return nil, fmt.Errorf("bench: replay: %d on and %d off cycles in the helper's output:\n%s", len(secs[ReplayOn]), len(secs[ReplayOff]), tailLines(out, 30))
	}
	res.Measured = len(secs[ReplayOn])
	match, xfer := map[string][]float64{}, map[string][]float64{}
	for _, s := range stats.Summarize(recs) {
		m := cycleFileRE.FindStringSubmatch(s.File)
		if m == nil || m[2] == "000" {
			continue
		}
		if s.Errors > 0 {
			return nil, fmt.Errorf("bench: replay: %s reports %d errors", s.File, s.Errors)
		}
		match[m[1]] = append(match[m[1]], s.Match.Seconds())
		xfer[m[1]] = append(xfer[m[1]], s.Transfer.Seconds())
	}
	for _, r := range recs {
		m := cycleFileRE.FindStringSubmatch(r.File)
		if m == nil || m[2] == "000" {
			continue
		}
		k := m[1] + "/" + r.Role
		switch r.Replay {
		case stats.Hit:
			res.Hits[k]++
		case stats.Miss:
			res.Misses[k]++
		}
	}
	for _, mode := range ReplayModes {
		res.Seconds[mode] = Summarize(secs[mode])
		res.Match[mode] = Summarize(match[mode])
		res.Transfer[mode] = Summarize(xfer[mode])
	}
	res.OffVsOn = res.Seconds[ReplayOff].Median / res.Seconds[ReplayOn].Median
	return res, nil
}
