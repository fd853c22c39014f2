package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	dyadlib "github.com/couplet-hpc/couplet/capi/dyad"
)

// InterceptPoint is case 7 for one kind of path: what an open+close pair costs with
// and without libcouplet-dyad.so preloaded, on a file outside the managed directories.
type InterceptPoint struct {
	Path  string `json:"path"`  // "absolute" or "relative" (to the working directory)
	Iters int    `json:"iters"` // open+close pairs per repetition
	// Plain and Preload are nanoseconds of CPU time per pair; Overhead is Preload - Plain of each
	// repetition (runs alternate, so each pair of runs shares the machine's state).
	Plain    Summary `json:"plain_ns"`
	Preload  Summary `json:"preload_ns"`
	Overhead Summary `json:"overhead_ns"`
}

// InterceptTargetNs is the target overhead of an intercepted open+close outside the
// managed directories.
const InterceptTargetNs = 1000

// MeasureIntercept builds libcouplet-dyad.so and bench/progs/openclose, then runs the
// program reps times each way, alternating: plain, and preloaded with producer and
// consumer directories configured elsewhere (the library active, the file unmanaged).
func MeasureIntercept(iters, reps int) ([]InterceptPoint, error) {
	dir, err := os.MkdirTemp("", "couplet-bench-intercept-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	lib := filepath.Join(dir, "libcouplet-dyad.so")
	if err := dyadlib.Build(lib); err != nil {
		return nil, err
	}
	prog := filepath.Join(dir, "openclose")
	src := filepath.Join(dyadlib.Dir(), "..", "..", "bench", "progs", "openclose", "openclose.c")
	if b, err := exec.Command("cc", "-O2", "-o", prog, src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bench: building openclose: %v\n%s", err, b)
	}
	work := filepath.Join(dir, "elsewhere")
	for _, d := range []string{work, filepath.Join(dir, "prod"), filepath.Join(dir, "cons")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	run := func(preload bool) ([2]float64, error) {
		cmd := exec.Command(prog, work, strconv.Itoa(iters))
		cmd.Env = os.Environ()
		if preload {
			cmd.Env = append(cmd.Env, "LD_PRELOAD="+lib, "DYAD_KVS_NAMESPACE=bench",
				"DYAD_PATH_PRODUCER="+filepath.Join(dir, "prod"), "DYAD_PATH_CONSUMER="+filepath.Join(dir, "cons"))
		}
		out, err := cmd.Output()
		if err != nil {
			return [2]float64{}, fmt.Errorf("bench: openclose (preload %v): %v", preload, err)
		}
		var v [2]float64
		f := strings.Fields(string(out))
		if len(f) != 2 {
			return v, fmt.Errorf("bench: openclose printed %q", out)
		}
		for i := range v {
			if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				return v, err
			}
		}
		return v, nil
	}
	var plain, pre, over [2][]float64
	for r := 0; r < reps; r++ {
		a, err := run(false)
		if err != nil {
			return nil, err
		}
		b, err := run(true)
		if err != nil {
			return nil, err
		}
		for i := range 2 {
			plain[i] = append(plain[i], a[i])
			pre[i] = append(pre[i], b[i])
			over[i] = append(over[i], b[i]-a[i])
		}
	}
	out := make([]InterceptPoint, 2)
	for i, name := range []string{"absolute", "relative"} {
		out[i] = InterceptPoint{Path: name, Iters: iters, Plain: Summarize(plain[i]), Preload: Summarize(pre[i]), Overhead: Summarize(over[i])}
	}
	return out, nil
}

func writeIntercept(w io.Writer, r *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	if len(r.Intercept) == 0 {
		return
	}
	p("`bench/progs/openclose` opens (O_RDONLY) and closes one file %d times per run, by absolute and by", r.Intercept[0].Iters)
	p("relative path, in a directory outside the managed ones; runs alternate plain and with")
	p("libcouplet-dyad.so preloaded (DYAD_PATH_PRODUCER and DYAD_PATH_CONSUMER set elsewhere, so the")
	p("library is active). Each cell is the median (min–max) over %d runs, in nanoseconds of CPU time (user +", r.Intercept[0].Plain.N)
	p("system, so that waiting for a core on a shared machine does not count) per open+close;")
	p("the overhead is each run pair's difference. Target: under %d ns.", InterceptTargetNs)
	p("")
	p("| Path | plain (ns) | preloaded (ns) | overhead (ns) | target |")
	p("|---|---:|---:|---:|---|")
	for _, x := range r.Intercept {
		met := "met"
		if x.Overhead.Median >= InterceptTargetNs {
			met = "**missed**"
		}
		p("| %s | %s | %s | %s | < %d ns (%s) |", x.Path, x.Plain.Format("%.0f"), x.Preload.Format("%.0f"), x.Overhead.Format("%.0f"), InterceptTargetNs, met)
	}
	p("")
}
