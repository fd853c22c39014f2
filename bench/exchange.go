package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpilaunch"
	"github.com/couplet-hpc/couplet/transport/mpitransport"
)

// ExchangeProg is the import path of the case-1 helper program.
const ExchangeProg = "github.com/couplet-hpc/couplet/bench/progs/exchange"

// Exchange modes, as the helper names them.
const (
	ModeMPI     = "mpi"     // raw MPI subarray sends, the ideal exchange
	ModeCoupled = "coupled" // couplet: pnetcdf on a coupled file + dtf.Transfer, over MPI (two copies)
	ModeReplay  = "replay"  // the same with replay on: a session per round, each repeating the last one's record
	ModeSingle  = "single"  // the same, single-copy reads between ranks of one node
	ModeFile    = "file"    // real PnetCDF files: write, close, open, read
)

// ExchangeModes lists the modes in table order.
var ExchangeModes = []string{ModeMPI, ModeCoupled, ModeReplay, ModeSingle, ModeFile}

// exchangeLaunches groups the modes by mpirun: one point of case 1 is two
// launches, one after the other, the modes that move the array through
// memory taking turns in the first and the real files alone in the
// second. A file round writes, reads and frees as much page cache as the
// array, and on a VM that hands freed memory back to its host the copies
// of the round after it ran slower: in three pairs of launches at
// 256 MiB, raw MPI took 37-40 ms a round with the file mode among its
// turns against 29-38 without, and the single-copy rounds 40-57 ms
// against 26-37 (readers copying at 5 GB/s right after a file round and
// 7-8 GB/s later). The file's cost belongs to the file mode alone.
var exchangeLaunches = [][]string{{ModeMPI, ModeCoupled, ModeReplay, ModeSingle}, {ModeFile}}

// ModeLabel names a mode in tables and legends.
var ModeLabel = map[string]string{
	ModeMPI:     "raw MPI (subarray send/recv)",
	ModeCoupled: "couplet (pnetcdf + dtf.Transfer)",
	ModeReplay:  "couplet, replay on",
	ModeSingle:  "couplet, single copy on one node",
	ModeFile:    "PnetCDF files (write+close+open+read)",
}

// Writers and Readers are the component sizes of case 1.
const (
	Writers = 4
	Readers = 2
)

// ExchangeConfig is the dtf config of the helper: component w writes, r
// reads, files named *coupled.nc are coupled in transfer mode, and so are
// files named *replay-<round>.nc, with replay on; puts are not copied
// (buffer_data = 0: the explicit-epoch contract lets the writer's buffers be
// sent in place).
const ExchangeConfig = `[INFO]
ncomp = 2
comp_name = w
comp_name = r
buffer_data = 0
timeout = 300

[FILE]
filename = %coupled.nc
comp1 = w
comp2 = r
mode = transfer

[FILE]
filename = %replay-%.nc
comp1 = w
comp2 = r
mode = transfer
replay_io = 1
`

// ExchangePoint is case 1 at one size.
type ExchangePoint struct {
	MiB   int64 `json:"mib"`
	Bytes int64 `json:"bytes"`
	Reps  int   `json:"reps"`
	// Launches is how many separate launches measured this point; Seconds
	// and GBps then hold the median of the launch medians with the spread
	// across launches, and LaunchSeconds each launch's own summaries.
	Launches      int                  `json:"launches,omitempty"`
	LaunchSeconds []map[string]Summary `json:"launch_seconds,omitempty"`
	// Seconds per exchange and throughput in GB/s (1e9 bytes/s of the array
	// moved from writers to readers), by mode.
	Seconds map[string]Summary `json:"seconds"`
	GBps    map[string]Summary `json:"gb_per_s"`
	// CoupledVsMPI is coupled throughput / raw MPI throughput with replay off (target >= 0.95);
	// CoupledVsFile is coupled throughput / file throughput (target >= 2).
	CoupledVsMPI  float64 `json:"coupled_vs_mpi"`
	CoupledVsFile float64 `json:"coupled_vs_file"`
	// ReplayVsMPI is coupled throughput with replay on / raw MPI throughput
	// (target >= 0.95, as with replay off).
	ReplayVsMPI float64 `json:"replay_vs_mpi,omitempty"`
	// SingleVsMPI is single-copy coupling throughput / raw MPI throughput
	// (target >= 1.3 from 256 MiB).
	SingleVsMPI float64 `json:"single_vs_mpi,omitempty"`
}

// setRatios sets the point's ratios from its Seconds (0 where a mode is missing).
func (p *ExchangePoint) setRatios() {
	mpi := p.Seconds[ModeMPI].Median
	p.CoupledVsMPI = ratio(mpi, p.Seconds[ModeCoupled].Median)
	p.CoupledVsFile = ratio(p.Seconds[ModeFile].Median, p.Seconds[ModeCoupled].Median)
	p.ReplayVsMPI = ratio(mpi, p.Seconds[ModeReplay].Median)
	p.SingleVsMPI = ratio(mpi, p.Seconds[ModeSingle].Median)
}

var exchRE = regexp.MustCompile(`EXCH mode=(\w+) rep=(\d+) bytes=(\d+) seconds=([0-9.eE+-]+) ok=1`)

// ParseExchange reads the helper's EXCH lines into a point.
func ParseExchange(out string, mib int64) (ExchangePoint, error) {
	p := ExchangePoint{MiB: mib, Bytes: mib << 20, Seconds: map[string]Summary{}, GBps: map[string]Summary{}}
	secs := map[string][]float64{}
	for _, m := range exchRE.FindAllStringSubmatch(out, -1) {
		b, _ := strconv.ParseInt(m[3], 10, 64)
		s, err := strconv.ParseFloat(m[4], 64)
		if err != nil || s <= 0 {
			return p, fmt.Errorf("bench: bad measurement %q", m[0])
		}
		if b != p.Bytes {
			return p, fmt.Errorf("bench: helper moved %d bytes, want %d", b, p.Bytes)
		}
		secs[m[1]] = append(secs[m[1]], s)
	}
	if len(secs) == 0 {
		return p, fmt.Errorf("bench: no EXCH lines in the helper's output:\n%s", tailLines(out, 30))
	}
	for mode, xs := range secs {
		p.Seconds[mode] = Summarize(xs)
		p.GBps[mode] = p.Seconds[mode].Rate(float64(p.Bytes)).Scale(1e-9)
		p.Reps = max(p.Reps, len(xs))
	}
	p.setRatios()
	return p, nil
}

// ExchangeApps returns the MPMD launch of the helper bin: Writers writers
// and Readers readers exchanging mib MiB reps times per mode, with the
// config and all files in dir, and env (KEY=VALUE, e.g. extra OMPI_MCA_
// settings) added to every rank's environment.
func ExchangeApps(bin, dir string, mib int64, reps int, modes, env []string) ([]mpilaunch.App, error) {
	cfg := filepath.Join(dir, "exchange.ini")
	if err := os.WriteFile(cfg, []byte(ExchangeConfig), 0o644); err != nil {
		return nil, err
	}
	args := []string{"-cfg", cfg, "-dir", dir, "-mib", strconv.FormatInt(mib, 10), "-reps", strconv.Itoa(reps)}
	if len(modes) > 0 {
		args = append(args, "-modes", strings.Join(modes, ","))
	}
	// The single-copy path is on for the launch; the helper turns it off in
	// the rounds of the other modes.
	env = append(append([]string{}, env...), mpitransport.SingleCopyEnv+"=1")
	return []mpilaunch.App{{NP: Writers, Prog: bin, Args: args, Env: env}, {NP: Readers, Prog: bin, Args: args, Env: env}}, nil
}

// RunExchange runs case 1 at one size, its modes in the launches of
// exchangeLaunches, each in a fresh temporary directory, and parses the
// result; env is added to every rank's environment. The job fails with
// the ranks' own failure lines.
func RunExchange(bin string, mib int64, reps int, env []string, timeout time.Duration) (ExchangePoint, error) {
	var out strings.Builder
	for _, modes := range exchangeLaunches {
		o, err := launchExchange(bin, mib, reps, modes, env, timeout)
		if err != nil {
			return ExchangePoint{}, err
		}
		out.WriteString(o)
	}
	return ParseExchange(out.String(), mib)
}

// launchExchange runs one mpirun of the helper with the given modes and
// returns its output.
func launchExchange(bin string, mib int64, reps int, modes, env []string, timeout time.Duration) (string, error) {
	dir, err := os.MkdirTemp("", "couplet-bench-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	apps, err := ExchangeApps(bin, dir, mib, reps, modes, env)
	if err != nil {
		return "", err
	}
	r := mpilaunch.LaunchWith(timeout, launchEnv, apps...)
	if r.Err != nil {
		var msg strings.Builder
		for _, f := range mpilaunch.Failures(r.Output) {
			fmt.Fprintf(&msg, "\n  rank %d: %s", f.Rank, f.Msg)
		}
		if msg.Len() == 0 {
			msg.WriteString("\n" + tailLines(r.Output, 30))
		}
		return "", fmt.Errorf("bench: exchange of %d MiB (%s): %v%s", mib, strings.Join(modes, ", "), r.Err, msg.String())
	}
	return r.Output, nil
}

// BuildProgram compiles the main package pkg into dir and returns the
// executable's path.
func BuildProgram(pkg, dir string) (string, error) {
	out := filepath.Join(dir, filepath.Base(pkg))
	if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("bench: go build %s: %v\n%s", pkg, err, msg)
	}
	return out, nil
}

// tailLines returns the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
