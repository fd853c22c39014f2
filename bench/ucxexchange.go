package bench

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpilaunch"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
)

// Case-6a systems: the same coupled exchange over MPI (one MPMD launch) and
// over UCX between two separate launches, with UCX on TCP and on shared
// memory.
const (
	SysCoupledMPI = "mpi"     // one MPMD mpirun, transport = mpi
	SysUCXSM      = "ucx-sm"  // two mpiruns, transport = ucx, UCX_TLS=sm
	SysUCXTCP     = "ucx-tcp" // two mpiruns, transport = ucx, UCX_TLS=tcp
	// SysRawMPITCP is the baseline of UCX over tcp: the raw MPI exchange of
	// case 1 (subarray sends, no couplet) in one MPMD mpirun, forced onto
	// the tcp BTL over loopback.
	SysRawMPITCP = "raw-mpi-tcp"
)

// rawMPITCPEnv forces Open MPI onto TCP over loopback (ob1 PML, tcp BTL).
var rawMPITCPEnv = []string{"OMPI_MCA_pml=ob1", "OMPI_MCA_btl=self,tcp", "OMPI_MCA_btl_tcp_if_include=lo"}

// UCXExchangeSystems lists the case-6a systems in table order.
var UCXExchangeSystems = []string{SysCoupledMPI, SysUCXSM, SysUCXTCP, SysRawMPITCP}

// UCXExchangeLabel names a case-6a system in tables and legends.
var UCXExchangeLabel = map[string]string{
	SysCoupledMPI: "couplet over MPI (one MPMD mpirun)",
	SysUCXSM:      "couplet over UCX, UCX_TLS=sm (two mpiruns)",
	SysUCXTCP:     "couplet over UCX, UCX_TLS=tcp (two mpiruns)",
	SysRawMPITCP:  "raw MPI over tcp (btl tcp, loopback; one mpirun)",
}

// UCXExchangePoint is case 6a at one size: seconds per exchange and GB/s by
// system, and each UCX system's throughput relative to MPI.
type UCXExchangePoint struct {
	MiB   int64 `json:"mib"`
	Bytes int64 `json:"bytes"`
	Reps  int   `json:"reps"`
	// Launches is how many separate launches measured this point; Seconds
	// and GBps then hold the median of the launch medians with the spread
	// across launches, and LaunchSeconds each launch's own summaries.
	Launches      int                  `json:"launches,omitempty"`
	LaunchSeconds []map[string]Summary `json:"launch_seconds,omitempty"`
	Seconds       map[string]Summary   `json:"seconds"`
	GBps          map[string]Summary   `json:"gb_per_s"`
	VsMPI         map[string]float64   `json:"vs_mpi"` // median-time ratio MPI / system (> 1: faster than MPI)
	// TCPvsRawTCP is UCX tcp's throughput over raw MPI's over tcp.
	TCPvsRawTCP float64 `json:"ucx_tcp_vs_raw_mpi_tcp"`
}

var roundRE = regexp.MustCompile(`ROUND comp=(\w+) rep=(\d+) bytes=(\d+) t0=(\d+) t1=(\d+) ok=1`)

// ParseRounds pairs the ROUND lines of components w and r (from one output
// or from the two launches' outputs joined) and returns the seconds of each
// round: the latest end minus the latest start of the two components.
func ParseRounds(out string, bytes int64) ([]float64, error) {
	type span struct{ t0, t1 int64 }
	by := map[string]map[int]span{"w": {}, "r": {}}
	for _, m := range roundRE.FindAllStringSubmatch(out, -1) {
		b, _ := strconv.ParseInt(m[3], 10, 64)
		if b != bytes {
			return nil, fmt.Errorf("bench: helper moved %d bytes, want %d", b, bytes)
		}
		rep, _ := strconv.Atoi(m[2])
		t0, _ := strconv.ParseInt(m[4], 10, 64)
		t1, _ := strconv.ParseInt(m[5], 10, 64)
		if by[m[1]] == nil {
			return nil, fmt.Errorf("bench: ROUND line of unknown component %q", m[1])
		}
		by[m[1]][rep] = span{t0, t1}
	}
	var secs []float64
	for rep := 1; ; rep++ {
		w, okw := by["w"][rep]
		r, okr := by["r"][rep]
		if !okw || !okr {
			if okw != okr {
				return nil, fmt.Errorf("bench: round %d reported by one component only", rep)
			}
			break
		}
		d := max(w.t1, r.t1) - max(w.t0, r.t0)
		if d <= 0 {
			return nil, fmt.Errorf("bench: round %d has no positive duration", rep)
		}
		secs = append(secs, float64(d)/1e9)
	}
	if len(secs) == 0 {
		return nil, fmt.Errorf("bench: no paired ROUND lines in the helper's output:\n%s", tailLines(out, 30))
	}
	return secs, nil
}

// ucxRun holds what every case-6a launch shares.
type ucxRun struct {
	bin, dir string
	etcd     string // endpoint of the embedded etcd
	env      []string
	timeout  time.Duration
	seq      int
}

// aloneApps returns the two components' apps (writers first) running the
// coupled mode alone at mib MiB.
func (u *ucxRun) aloneApps(mib int64, reps int) ([]mpilaunch.App, error) {
	apps, err := ExchangeApps(u.bin, u.dir, mib, reps, nil, u.env)
	if err != nil {
		return nil, err
	}
	for i := range apps {
		apps[i].Args = append(apps[i].Args, "-alone", "-writers", strconv.Itoa(Writers), "-readers", strconv.Itoa(Readers))
	}
	return apps, nil
}

// launchMPI runs the MPMD twin: both components in one mpirun over MPI.
func (u *ucxRun) launchMPI(mib int64, reps int) (string, error) {
	apps, err := u.aloneApps(mib, reps)
	if err != nil {
		return "", err
	}
	r := mpilaunch.LaunchWith(u.timeout, launchEnv, apps...)
	if r.Err != nil {
		return "", launchError(fmt.Sprintf("coupled exchange over MPI, %d MiB", mib), r)
	}
	return r.Output, nil
}

// launchRawTCP runs the raw MPI exchange alone (no couplet) in one MPMD
// mpirun over the tcp BTL: the baseline for couplet over UCX tcp.
func (u *ucxRun) launchRawTCP(mib int64, reps int) (string, error) {
	env := append(append([]string{}, u.env...), rawMPITCPEnv...)
	apps, err := ExchangeApps(u.bin, u.dir, mib, reps, []string{ModeMPI}, env)
	if err != nil {
		return "", err
	}
	r := mpilaunch.LaunchWith(u.timeout, launchEnv, apps...)
	if r.Err != nil {
		return "", launchError(fmt.Sprintf("raw MPI exchange over tcp, %d MiB", mib), r)
	}
	return r.Output, nil
}

// launchUCX runs the writers and the readers as two separate mpiruns that
// meet in the etcd and move data over UCX with UCX_TLS=tls.
func (u *ucxRun) launchUCX(mib int64, reps int, tls string) (string, error) {
	apps, err := u.aloneApps(mib, reps)
	if err != nil {
		return "", err
	}
	u.seq++
	job := fmt.Sprintf("bench-%d-%d-%s-%d", os.Getpid(), time.Now().UnixNano(), tls, u.seq)
	for i, comp := range []string{"w", "r"} {
		apps[i].Env = append(append([]string{}, apps[i].Env...), "COUPLET_COMPONENT="+comp, "COUPLET_JOB="+job,
			"COUPLET_TRANSPORT=ucx", "COUPLET_KVS="+u.etcd, "UCX_TLS="+tls)
	}
	var wg sync.WaitGroup
	res := make([]mpilaunch.Result, len(apps))
	for i, a := range apps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = mpilaunch.LaunchWith(u.timeout, launchEnv, a)
		}()
	}
	wg.Wait()
	var out strings.Builder
	for i, r := range res {
		if r.Err != nil {
			return "", launchError(fmt.Sprintf("coupled exchange over UCX (%s), %d MiB, component %s", tls, mib, []string{"w", "r"}[i]), r)
		}
		out.WriteString(r.Output)
	}
	return out.String(), nil
}

// launchError describes a failed launch with the ranks' failure lines.
func launchError(what string, r mpilaunch.Result) error {
	var msg strings.Builder
	for _, f := range mpilaunch.Failures(r.Output) {
		fmt.Fprintf(&msg, "\n  rank %d: %s", f.Rank, f.Msg)
	}
	if msg.Len() == 0 {
		msg.WriteString("\n" + tailLines(r.Output, 30))
	}
	return fmt.Errorf("bench: %s: %v%s", what, r.Err, msg.String())
}

// RunUCXExchange measures case 6a: for every size, the coupled exchange of
// case 1 over MPI and over UCX (sm and tcp), each reps timed rounds after a
// warm-up round. The launches of one size follow each other in turn order
// (MPI, UCX sm, UCX tcp). bin is the built exchange helper.
func RunUCXExchange(bin string, sizes []int64, reps int, env []string, timeout time.Duration, progress func(string, ...any)) ([]UCXExchangePoint, error) {
	dir, err := os.MkdirTemp("", "couplet-bench-ucx-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	etcd, err := embedded.Start(embedded.Config{Dir: dir + "/etcd"})
	if err != nil {
		return nil, err
	}
	defer etcd.Close()
	u := &ucxRun{bin: bin, dir: dir, etcd: etcd.Endpoint(), env: env, timeout: timeout}
	var pts []UCXExchangePoint
	for _, mib := range sizes {
		p := UCXExchangePoint{MiB: mib, Bytes: mib << 20, Reps: reps, Seconds: map[string]Summary{}, GBps: map[string]Summary{}, VsMPI: map[string]float64{}}
		for _, sys := range UCXExchangeSystems {
			var out string
			switch sys {
			case SysCoupledMPI:
				out, err = u.launchMPI(mib, reps)
			case SysRawMPITCP:
				out, err = u.launchRawTCP(mib, reps)
			default:
				out, err = u.launchUCX(mib, reps, strings.TrimPrefix(sys, "ucx-"))
			}
			if err != nil {
				return nil, err
			}
			if sys == SysRawMPITCP {
				x, err := ParseExchange(out, mib)
				if err != nil {
					return nil, fmt.Errorf("%s, %d MiB: %w", sys, mib, err)
				}
				p.Seconds[sys] = x.Seconds[ModeMPI]
			} else {
				secs, err := ParseRounds(out, p.Bytes)
				if err != nil {
					return nil, fmt.Errorf("%s, %d MiB: %w", sys, mib, err)
				}
				p.Seconds[sys] = Summarize(secs)
			}
			p.GBps[sys] = p.Seconds[sys].Rate(float64(p.Bytes)).Scale(1e-9)
			if progress != nil {
				progress("        %d MiB %-8s %s GB/s", mib, sys, p.GBps[sys].Format("%.2f"))
			}
		}
		for _, sys := range UCXExchangeSystems {
			p.VsMPI[sys] = p.Seconds[SysCoupledMPI].Median / p.Seconds[sys].Median
		}
		p.TCPvsRawTCP = ratio(p.Seconds[SysRawMPITCP].Median, p.Seconds[SysUCXTCP].Median)
		pts = append(pts, p)
	}
	return pts, nil
}
