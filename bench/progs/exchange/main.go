// Command exchange is the array-coupling benchmark of `couplet bench`: one
// MPMD launch `mpirun -np 4 exchange ... : -np 2 exchange ...` whose first
// component "w" writes a 3-D float64 array (2x2 blocks over y,x) and whose
// second component "r" reads it (slabs along z, so every reader box spans all
// four writers). In the same run, in interleaved rounds, it moves the same
// bytes with the same layouts in each of these ways:
//
//   - mpi: raw MPI, each writer sends exactly the overlapping sub-block
//     straight from its array with a subarray datatype and each reader
//     receives straight into its array (the ideal exchange);
//   - coupled: pnetcdf PutVaraAll on a coupled file plus dtf.Transfer on the
//     writers, IGetVara plus dtf.Transfer on the readers, one epoch per round
//     of a single session (an untimed warm-up epoch first), with the MPI
//     transport's single-copy path off: MPI's two copies, as between nodes;
//   - replay: the coupled exchange with replay on: every round is a session
//     of its own (replay-<round>.nc, a [FILE] section with replay_io = 1),
//     created and opened before the round's first barrier and closed after
//     its last, so that the timed epoch, epoch 0 of its session, repeats
//     the recorded epoch 0 of the session before it (the warm-up round
//     records): the writers push by their record, with no matching;
//   - single: more epochs of the coupled session, with the single-copy path
//     on (readers copy straight from the writers' memory);
//   - file: real PnetCDF files on local disk: writers create, PutVaraAll and
//     close; readers open, GetVaraAll and close; timed end to end.
//
// The modes take turns in an order shuffled afresh for every round (the
// same on every rank). Every round of every mode is timed between world
// barriers and every value the readers receive is checked. World rank 0
// prints one line per timed round:
//
//	EXCH mode=coupled rep=3 bytes=67108864 seconds=0.0123 ok=1
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/internal/hugemem"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/transport/mpitransport"
)

func init() { runtime.LockOSThread() }

var (
	cfgPath = flag.String("cfg", "", "dtf config coupling files named coupled.nc, and replay-*.nc with replay_io = 1")
	dir     = flag.String("dir", os.TempDir(), "directory for the coupled file name and the real files")
	mib     = flag.Int64("mib", 64, "total array size in MiB (a multiple of 2)")
	reps    = flag.Int("reps", 5, "timed rounds per mode (after one untimed warm-up round)")
	modes   = flag.String("modes", "mpi,coupled,replay,single,file", "modes to measure, comma-separated")
	alone   = flag.Bool("alone", false, "time the coupled mode alone, per component (ROUND lines): for separate launches over UCX and its MPMD twin (two copies, as -modes coupled)")
	nwFlag  = flag.Int("writers", 4, "with -alone: ranks of component w")
	nrFlag  = flag.Int("readers", 2, "with -alone: ranks of component r")
	cpu     = flag.Bool("cpu", false, "also print each timed round's CPU time (user+sys) and context switches summed over every rank: CPU lines")
)

// side is the extent of the y and x dimensions: one z-plane is 2 MiB.
const side = 512

// run is what every mode sees.
type run struct {
	writer     bool
	comm       mpi.Comm // this component
	world      mpi.Comm
	rank, size int // in the component
	nz         int64
	// Writers hold [nz][side/2][side/2] at (0, y0, x0); readers hold
	// [nz/nr][side][side] at (z0, 0, 0).
	start, count []int64
	buf          []float64
	nw, nr       int
	round        int           // increases every round, salts the values
	cf           *pnetcdf.File // the coupled session
	rf           *pnetcdf.File // the replay round's session
	lastFile     string        // the real file of the last file round
}

func main() {
	flag.Parse()
	if err := dtf.Init(*cfgPath, ""); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL rank -1:", err)
		os.Exit(1)
	}
	world := mpi.World()
	if err := body(world); err != nil {
		mpitest.Fail(world.Rank(), "%s: %v", dtf.ComponentName(), err)
		mpi.Abort(world, 1)
	}
	if err := dtf.Finalize(); err != nil {
		mpitest.Fail(world.Rank(), "finalize: %v", err)
	}
	mpitest.Exit()
}

func body(world mpi.Comm) error {
	c := dtf.Comm()
	r := &run{writer: dtf.ComponentName() == "w", comm: c, world: world, rank: c.Rank(), size: c.Size()}
	var err error
	if *mib < 2 || *mib%2 != 0 {
		return fmt.Errorf("-mib %d: want an even number >= 2", *mib)
	}
	r.nz = *mib / 2
	r.nw, r.nr = r.size, world.Size()-r.size
	if !r.writer {
		r.nw, r.nr = world.Size()-r.size, r.size
	}
	if *alone {
		// The peer may be another launch: its size comes from the flags.
		r.nw, r.nr = *nwFlag, *nrFlag
		if (r.writer && r.size != r.nw) || (!r.writer && r.size != r.nr) {
			return fmt.Errorf("component %s has %d ranks, flags say %d writers and %d readers", dtf.ComponentName(), r.size, r.nw, r.nr)
		}
	}
	if r.nw != 4 {
		return fmt.Errorf("want 4 writers (a 2x2 grid), have %d", r.nw)
	}
	if r.nz%int64(r.nr) != 0 {
		return fmt.Errorf("%d z-planes do not split evenly over %d readers", r.nz, r.nr)
	}
	if r.writer {
		h := int64(side / 2)
		r.start = []int64{0, int64(r.rank/2) * h, int64(r.rank%2) * h}
		r.count = []int64{r.nz, h, h}
	} else {
		dz := r.nz / int64(r.nr)
		r.start = []int64{int64(r.rank) * dz, 0, 0}
		r.count = []int64{dz, side, side}
	}
	alloc := hugeFloats
	if r.writer { // readers on the node may map it: see sharedFloats
		alloc = sharedFloats
	}
	if r.buf, err = alloc(r.count[0] * r.count[1] * r.count[2]); err != nil {
		return err
	}
	clear(r.buf) // touch every page before any timing

	if *alone {
		return r.aloneRounds()
	}
	measures := map[string]func(*run) error{"mpi": (*run).mpiRound, "coupled": (*run).coupledRound, "single": (*run).coupledRound,
		"replay": (*run).replayRound, "file": (*run).fileRound, "mpi-poll": (*run).mpiPollRound}
	// A mode with a session per round opens it before the round's timing and
	// closes it after.
	opens := map[string]func(*run) error{"replay": (*run).openReplay}
	closes := map[string]func(*run) error{"replay": (*run).closeReplay}
	var order []string
	for _, m := range strings.Split(*modes, ",") {
		if _, ok := measures[m]; !ok {
			return fmt.Errorf("unknown mode %q (want mpi, coupled, single, replay, file, mpi-poll)", m)
		}
		order = append(order, m)
	}
	if slices.Contains(order, "coupled") || slices.Contains(order, "single") {
		var err error
		if r.cf, err = r.openCoupled(); err != nil {
			return err
		}
	}
	total := int64(*mib) << 20
	// Round 0 is the untimed warm-up of every mode; the modes take turns so
	// that drift on a shared machine hits them alike, in an order that changes
	// from round to round (turnOrder).
	for rep := 0; rep <= *reps; rep++ {
		for _, m := range turnOrder(order, rep) {
			r.round++
			if r.writer {
				r.fill()
			}
			// Every rank switches before the barrier, with no block in flight.
			mpitransport.SetSingleCopy(m == "single")
			if open := opens[m]; open != nil {
				if err := open(r); err != nil {
					return fmt.Errorf("%s round %d: %w", m, rep, err)
				}
			}
			if err := mpi.Barrier(world); err != nil {
				return err
			}
			c0, s0 := cpuSeconds()
			t0 := time.Now()
			if err := measures[m](r); err != nil {
				return fmt.Errorf("%s round %d: %w", m, rep, err)
			}
			if err := mpi.Barrier(world); err != nil {
				return err
			}
			secs := time.Since(t0).Seconds()
			if closeRound := closes[m]; closeRound != nil {
				if err := closeRound(r); err != nil {
					return fmt.Errorf("%s round %d: %w", m, rep, err)
				}
			}
			if *cpu {
				c1, s1 := cpuSeconds()
				used := []float64{c1 - c0, s1 - s0}
				sum := []float64{0, 0}
				if err := mpi.Allreduce(world, used, sum, mpi.Sum); err != nil {
					return err
				}
				if world.Rank() == 0 && rep > 0 {
					fmt.Printf("CPU mode=%s rep=%d seconds=%.6f switches=%.0f\n", m, rep, sum[0], sum[1])
				}
			}
			bad := []int64{0}
			if !r.writer {
				bad[0] = r.verify()
			}
			all := []int64{0}
			if err := mpi.Allreduce(world, bad, all, mpi.Sum); err != nil {
				return err
			}
			if all[0] != 0 {
				return fmt.Errorf("%s round %d: readers received %d wrong values", m, rep, all[0])
			}
			if r.lastFile != "" && world.Rank() == 0 {
				os.Remove(r.lastFile) // keep the disk footprint to one file
			}
			r.lastFile = ""
			if world.Rank() == 0 && rep > 0 {
				fmt.Printf("EXCH mode=%s rep=%d bytes=%d seconds=%.6f ok=1\n", m, rep, total, secs)
			}
		}
	}
	if r.cf != nil {
		return r.cf.Close()
	}
	return nil
}

// hugeFloats returns n float64 in memory of its own that the kernel backs
// with transparent huge pages where it can (hugemem: made huge at once, not
// marked MADV_HUGEPAGE, which has khugepaged hold the process's mmap lock),
// as HPC codes commonly allocate large arrays: a cross-memory read pins the
// source pages one by one, which costs more than the copy with 4 KiB pages.
// Every mode uses the same arrays.
func hugeFloats(n int64) ([]float64, error) {
	mem, err := hugemem.Map(int(n * 8))
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&mem[0])), n), nil
}

// sharedFloats returns n float64 in memory that readers on this node can
// map (cma.Alloc, the analogue of MPI_Win_allocate_shared), as a writer
// that wants single-copy reads allocates its arrays: a reader copies from
// it with plain loads and stores instead of process_vm_readv (the single
// mode, and couplet over UCX between launches with cma.Env on). Every mode
// uses the same arrays; the others copy from them as from any memory.
func sharedFloats(n int64) ([]float64, error) {
	mem, err := cma.Alloc(int(n * 8))
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&mem[0])), n), nil
}

// cpuSeconds is this process's CPU time so far, user plus system, and its
// context switches (voluntary and not), over all its threads.
func cpuSeconds() (secs, switches float64) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, float64(ru.Nvcsw + ru.Nivcsw)
}

// turnOrder is the order in which round rep runs the modes: a shuffle of
// modes seeded by rep, the same on every rank (the warm-up round, 0, keeps
// their order). What a round leaves behind changes the next one's time: in a
// fixed order raw MPI always followed the file mode (a real file written,
// read and removed) and couplet always followed raw MPI, and couplet / raw
// MPI at 64 MiB read 0.91-0.95 (median 0.92) in seven launches of 60
// rounds against 0.88-0.94 (0.91) in seven shuffled ones, interleaved:
// within the spread, but the fixed order favoured couplet.
func turnOrder(modes []string, rep int) []string {
	out := slices.Clone(modes)
	if rep > 0 {
		rand.New(rand.NewPCG(uint64(rep), 0)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// value is the element at global (z, y, x) in round k: exact in float64.
func value(z, y, x int64, k int) float64 {
	return float64(((z*side+y)*side+x)*64 + int64(k%64))
}

// fill writes this round's values into a writer's block.
func (r *run) fill() {
	i := 0
	for z := r.start[0]; z < r.start[0]+r.count[0]; z++ {
		for y := r.start[1]; y < r.start[1]+r.count[1]; y++ {
			base := value(z, y, r.start[2], r.round)
			row := r.buf[i : i+int(r.count[2])]
			for x := range row {
				row[x] = base + float64(x*64)
			}
			i += len(row)
		}
	}
}

// verify counts the reader's values that differ from this round's.
func (r *run) verify() int64 {
	var bad int64
	i := 0
	for z := r.start[0]; z < r.start[0]+r.count[0]; z++ {
		for y := r.start[1]; y < r.start[1]+r.count[1]; y++ {
			base := value(z, y, r.start[2], r.round)
			row := r.buf[i : i+int(r.count[2])]
			for x, v := range row {
				if v != base+float64(x*64) {
					bad++
				}
			}
			i += len(row)
		}
	}
	return bad
}

// readerZ returns the z-range of reader slab number reader; a writer's whole
// y,x block lies inside every reader slab.
func (r *run) readerZ(reader int) (z0, dz int64) {
	dz = r.nz / int64(r.nr)
	return int64(reader) * dz, dz
}

// mpiRound is the ideal exchange: one subarray message per writer-reader pair.
func (r *run) mpiRound() error { return r.subarrayExchange(mpi.Waitall) }

// mpiPollRound is the ideal exchange completed the way a runtime that must
// not block does it: MPI_Test on each request, sleeping between polls with
// a backoff from 2 us to 2 ms. Optional (-modes mpi-poll), it shows what
// polling costs against Waitall, which lets MPI progress continuously.
func (r *run) mpiPollRound() error {
	return r.subarrayExchange(func(reqs []*mpi.Request) error {
		sleep := 2 * time.Microsecond
		for _, q := range reqs {
			for {
				done, _, err := q.Test()
				if err != nil {
					return err
				}
				if done {
					break
				}
				time.Sleep(sleep)
				sleep = min(2*sleep, 2*time.Millisecond)
			}
		}
		return nil
	})
}

// subarrayExchange posts the subarray sends or receives and completes them
// with wait.
func (r *run) subarrayExchange(wait func([]*mpi.Request) error) error {
	b := nc.Bytes(r.buf)
	var reqs []*mpi.Request
	var types []*mpi.Datatype
	defer func() {
		for _, t := range types {
			t.Free()
		}
	}()
	h := int64(side / 2)
	if r.writer {
		for rd := 0; rd < r.nr; rd++ {
			z0, dz := r.readerZ(rd)
			dt, err := mpi.NewSubarray(8, r.count, []int64{dz, h, h}, []int64{z0, 0, 0})
			if err != nil {
				return err
			}
			types = append(types, dt)
			q, err := mpi.IsendType(r.world, b, dt, r.nw+rd, 77)
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
	} else {
		for w := 0; w < r.nw; w++ {
			dt, err := mpi.NewSubarray(8, r.count, []int64{r.count[0], h, h}, []int64{0, int64(w/2) * h, int64(w%2) * h})
			if err != nil {
				return err
			}
			types = append(types, dt)
			q, err := mpi.IrecvType(r.world, b, dt, w, 77)
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
	}
	return wait(reqs)
}

func coupledPath() string { return filepath.Join(*dir, "coupled.nc") }

// openCoupled opens the coupled session that every coupled round is one
// epoch of.
func (r *run) openCoupled() (*pnetcdf.File, error) {
	if !r.writer {
		return pnetcdf.Open(r.comm, coupledPath(), nc.NOWRITE)
	}
	return r.define(coupledPath())
}

// define creates path with the variable T[z][y][x].
func (r *run) define(path string) (*pnetcdf.File, error) {
	f, err := pnetcdf.Create(r.comm, path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return nil, err
	}
	z, err1 := f.DefDim("z", r.nz)
	y, err2 := f.DefDim("y", side)
	x, err3 := f.DefDim("x", side)
	_, err4 := f.DefVar("T", nc.DOUBLE, []int{z, y, x})
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		f.Close()
		return nil, err
	}
	return f, f.EndDef()
}

func (r *run) coupledRound() error { return r.epoch(r.cf, coupledPath()) }

// epoch is one epoch of the coupled file f at path: the writers put their
// blocks, the readers post their slabs, and both transfer.
func (r *run) epoch(f *pnetcdf.File, path string) error {
	if r.writer {
		if err := pnetcdf.PutVaraAll(f, 0, r.start, r.count, r.buf); err != nil {
			return err
		}
	} else if _, err := pnetcdf.IGetVara(f, 0, r.start, r.count, r.buf); err != nil {
		return err
	}
	return dtf.Transfer(path)
}

// replayPath names the session of round k of the replay mode.
func replayPath(k int) string { return filepath.Join(*dir, fmt.Sprintf("replay-%d.nc", k)) }

// openReplay creates (writers) or opens (readers) this round's replay session.
func (r *run) openReplay() error {
	var err error
	if r.writer {
		r.rf, err = r.define(replayPath(r.round))
	} else {
		r.rf, err = pnetcdf.Open(r.comm, replayPath(r.round), nc.NOWRITE)
	}
	return err
}

// replayRound is the epoch of this round's replay session.
func (r *run) replayRound() error { return r.epoch(r.rf, replayPath(r.round)) }

// closeReplay ends this round's replay session.
func (r *run) closeReplay() error {
	err := r.rf.Close()
	r.rf = nil
	return err
}

// fileRound exchanges through a real file: write and close, then open and
// read. Each round uses a new file name (it does not match the coupled
// pattern), removed after the round outside the timed part.
func (r *run) fileRound() error {
	path := filepath.Join(*dir, fmt.Sprintf("disk-%d.nc", r.round))
	r.lastFile = path
	if r.writer {
		f, err := r.define(path)
		if err != nil {
			return err
		}
		if err := errors.Join(pnetcdf.PutVaraAll(f, 0, r.start, r.count, r.buf), f.Close()); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(r.world); err != nil {
		return err
	}
	if !r.writer {
		f, err := pnetcdf.Open(r.comm, path, nc.NOWRITE)
		if err != nil {
			return err
		}
		if err := errors.Join(pnetcdf.GetVaraAll(f, 0, r.start, r.count, r.buf), f.Close()); err != nil {
			return err
		}
	}
	return nil
}

// aloneRounds runs the coupled mode only, with no world to synchronise on
// (the components may be separate launches): each round is timed between
// barriers of this component, and rank 0 prints the component's round
// start and end as Unix nanoseconds,
//
//	ROUND comp=w rep=3 bytes=67108864 t0=... t1=... ok=1
//
// The harness takes the round time as the latest end minus the latest start
// of the two components: from the moment both are in the round until both
// are done, the twin of the world-barrier timing of case 1.
func (r *run) aloneRounds() error {
	mpitransport.SetSingleCopy(false)
	var err error
	if r.cf, err = r.openCoupled(); err != nil {
		return err
	}
	total := int64(*mib) << 20
	// There is no barrier common to both components, so a writer filling
	// its array between rounds would do it while the readers still finish
	// the round, taking cores from them. The writers fill an array for odd
	// and one for even rounds before the first round instead; the readers
	// clear theirs after checking it, so that a round that delivered
	// nothing cannot pass for the one two rounds before.
	var bufs [2][]float64
	if r.writer {
		bufs[0] = r.buf
		if bufs[1], err = sharedFloats(int64(len(r.buf))); err != nil {
			return err
		}
		for i, b := range bufs {
			r.buf, r.round = b, i
			r.fill()
		}
	}
	for rep := 0; rep <= *reps; rep++ {
		r.round = rep % 2
		if r.writer {
			r.buf = bufs[r.round]
		}
		if err := mpi.Barrier(r.comm); err != nil {
			return err
		}
		t0 := time.Now()
		if err := r.coupledRound(); err != nil {
			return fmt.Errorf("coupled round %d: %w", rep, err)
		}
		if err := mpi.Barrier(r.comm); err != nil {
			return err
		}
		t1 := time.Now()
		bad := []int64{0}
		if !r.writer {
			bad[0] = r.verify()
			clear(r.buf)
		}
		all := []int64{0}
		if err := mpi.Allreduce(r.comm, bad, all, mpi.Sum); err != nil {
			return err
		}
		if all[0] != 0 {
			return fmt.Errorf("coupled round %d: readers received %d wrong values", rep, all[0])
		}
		if r.rank == 0 && rep > 0 {
			fmt.Printf("ROUND comp=%s rep=%d bytes=%d t0=%d t1=%d ok=1\n", dtf.ComponentName(), rep, total, t0.UnixNano(), t1.UnixNano())
		}
	}
	return r.cf.Close()
}
