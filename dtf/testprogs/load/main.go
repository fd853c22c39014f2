// Command load is the helper of dtf's load tests: a writer component "w" and
// a reader component "r" in one MPMD mpirun.
//
//   - -case boxes: every writer puts its band of rows as many small tiles and
//     every reader gets a band of columns as many small tiles, so one matcher
//     intersects thousands of boxes; the readers check every value.
//   - -case soak: -cycles files, one per cycle, written and read with the same
//     pattern (replay hits after the first), each rank sampling its resident
//     memory (VmRSS) after every cycle and writing the samples, one per line,
//     to rss_<component>_<world rank>.txt in -dir.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func init() { runtime.LockOSThread() }

var (
	cfgPath = flag.String("cfg", "", "dtf config")
	caseArg = flag.String("case", "boxes", "boxes | soak")
	dir     = flag.String("dir", ".", "directory for coupled file names")
	ny      = flag.Int64("ny", 64, "global rows")
	nx      = flag.Int64("nx", 64, "global columns")
	tile    = flag.Int64("tile", 4, "edge of the small tiles (boxes case)")
	cycles  = flag.Int("cycles", 200, "soak cycles")
)

// env is what both cases get.
type env struct {
	writer     bool
	comm       mpi.Comm
	rank, size int
	world      int
	nbox       int
}

func main() {
	flag.Parse()
	if err := dtf.Init(*cfgPath, ""); err != nil {
		mpitest.Fatal(-1, "init: %v", err)
	}
	c := dtf.Comm()
	e := &env{writer: dtf.ComponentName() == "w", comm: c, rank: c.Rank(), size: c.Size(), world: mpi.World().Rank()}
	var err error
	switch *caseArg {
	case "boxes":
		err = caseBoxes(e)
	case "soak":
		err = caseSoak(e)
	default:
		err = fmt.Errorf("unknown case %q", *caseArg)
	}
	if err != nil {
		mpitest.Fail(e.world, "%s %s: %v", dtf.ComponentName(), *caseArg, err)
	}
	if err := dtf.Finalize(); err != nil {
		mpitest.Fail(e.world, "finalize: %v", err)
	}
	mpitest.Exit()
}

// value is the expected element at (y, x) in cycle k.
func value(k int, y, x int64) float64 { return float64(k*1000000) + float64(y**nx+x) }

// band splits n into size parts and returns part i.
func band(n int64, i, size int) (lo, hi int64) {
	return int64(i) * n / int64(size), int64(i+1) * n / int64(size)
}

// tiles cuts the box [y0,y1)x[x0,x1) into tiles of edge t.
func tiles(y0, y1, x0, x1, t int64) (starts, counts [][]int64) {
	for y := y0; y < y1; y += t {
		for x := x0; x < x1; x += t {
			starts = append(starts, []int64{y, x})
			counts = append(counts, []int64{min(t, y1-y), min(t, x1-x)})
		}
	}
	return starts, counts
}

func create(e *env, path string) (*pnetcdf.File, error) {
	f, err := pnetcdf.Create(e.comm, path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return nil, err
	}
	y, _ := f.DefDim("y", *ny)
	x, _ := f.DefDim("x", *nx)
	if _, err := f.DefVar("T", nc.DOUBLE, []int{y, x}); err != nil {
		return nil, err
	}
	return f, f.EndDef()
}

// writeTiles puts rows [y0,y1) as tiles with iput and waits for them.
func writeTiles(e *env, f *pnetcdf.File, k int, y0, y1 int64) error {
	starts, counts := tiles(y0, y1, 0, *nx, *tile)
	for i := range starts {
		buf := make([]float64, 0, counts[i][0]*counts[i][1])
		for y := starts[i][0]; y < starts[i][0]+counts[i][0]; y++ {
			for x := starts[i][1]; x < starts[i][1]+counts[i][1]; x++ {
				buf = append(buf, value(k, y, x))
			}
		}
		if _, err := pnetcdf.IPutVara(f, 0, starts[i], counts[i], buf); err != nil {
			return err
		}
	}
	e.nbox += len(starts)
	_, err := f.WaitAll(nc.REQ_ALL, nil)
	return err
}

// readTiles gets columns [x0,x1) as tiles with iget, waits and checks.
func readTiles(e *env, f *pnetcdf.File, k int, x0, x1 int64) error {
	starts, counts := tiles(0, *ny, x0, x1, *tile)
	bufs := make([][]float64, len(starts))
	for i := range starts {
		bufs[i] = make([]float64, counts[i][0]*counts[i][1])
		if _, err := pnetcdf.IGetVara(f, 0, starts[i], counts[i], bufs[i]); err != nil {
			return err
		}
	}
	e.nbox += len(starts)
	if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
		return err
	}
	for i := range starts {
		j := 0
		for y := starts[i][0]; y < starts[i][0]+counts[i][0]; y++ {
			for x := starts[i][1]; x < starts[i][1]+counts[i][1]; x++ {
				if got, want := bufs[i][j], value(k, y, x); got != want {
					return fmt.Errorf("cycle %d: (%d,%d) is %v, want %v", k, y, x, got, want)
				}
				j++
			}
		}
	}
	return nil
}

// cycle writes or reads one file.
func cycle(e *env, path string, k int) error {
	if e.writer {
		f, err := create(e, path)
		if err != nil {
			return err
		}
		y0, y1 := band(*ny, e.rank, e.size)
		if err := writeTiles(e, f, k, y0, y1); err != nil {
			return err
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	x0, x1 := band(*nx, e.rank, e.size)
	if err := readTiles(e, f, k, x0, x1); err != nil {
		return err
	}
	return f.Close()
}

func caseBoxes(e *env) error {
	if err := cycle(e, filepath.Join(*dir, "boxes.nc"), 0); err != nil {
		return err
	}
	fmt.Printf("BOXES %s rank %d %d\n", dtf.ComponentName(), e.rank, e.nbox)
	return nil
}

func caseSoak(e *env) error {
	samples := make([]string, 0, *cycles)
	for k := 0; k < *cycles; k++ {
		if err := cycle(e, filepath.Join(*dir, fmt.Sprintf("soak_%04d.nc", k)), k); err != nil {
			return fmt.Errorf("cycle %d: %w", k, err)
		}
		kb, err := vmRSS()
		if err != nil {
			return err
		}
		samples = append(samples, strconv.FormatInt(kb, 10))
	}
	// A file per rank: mpirun may split long output lines.
	name := filepath.Join(*dir, fmt.Sprintf("rss_%s_%d.txt", dtf.ComponentName(), e.world))
	return os.WriteFile(name, []byte(strings.Join(samples, "\n")+"\n"), 0o644)
}

// vmRSS reads this process's resident set size in KiB.
func vmRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}
