// Command fault is the helper of dtf's fault tests: a writer component "w"
// and a reader component "r" in one MPMD mpirun, where one side dies or never
// shows up. The survivors report the error their dtf call returned and how
// long it took as
//
//	SURVIVOR <comp> rank <world rank> after <seconds>s: <error>
//
// and exit 0 without MPI_Finalize (a dead peer would hang its barrier). The
// test runs mpirun with orte_enable_recovery so that a dead rank does not take
// the survivors down with it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

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
	caseArg = flag.String("case", "", "killwriter | killreader | noreader | noepoch | nocreate")
	dir     = flag.String("dir", ".", "directory for coupled file names")
	victim  = flag.Int("victim", 0, "component rank that dies")
	final   = flag.Bool("finalize", false, "survivors call dtf.Finalize after reporting, and report its result")
)

const ny, nx = 16, 8

// env is what every case gets.
type env struct {
	writer bool
	comm   mpi.Comm
	rank   int
	world  int
	path   string
}

var cases = map[string]func(env) error{
	"killwriter": caseKillWriter,
	"killreader": caseKillReader,
	"noreader":   caseNoReader,
	"noepoch":    caseNoEpoch,
	"nocreate":   caseNoCreate,
}

func main() {
	flag.Parse()
	if err := dtf.Init(*cfgPath, ""); err != nil {
		mpitest.Fatal(-1, "init: %v", err)
	}
	c := dtf.Comm()
	e := env{writer: dtf.ComponentName() == "w", comm: c, rank: c.Rank(), world: mpi.World().Rank(), path: filepath.Join(*dir, "fault.nc")}
	run, ok := cases[*caseArg]
	if !ok {
		mpitest.Fatal(e.world, "unknown case %q", *caseArg)
	}
	start := time.Now()
	err := run(e)
	if err == nil {
		// The side that had nothing to wait for (an idle component) ends here.
		fmt.Printf("DONE %s rank %d\n", dtf.ComponentName(), e.world)
		os.Exit(0)
	}
	comp := dtf.ComponentName()
	fmt.Printf("SURVIVOR %s rank %d after %.2fs: %v\n", comp, e.world, time.Since(start).Seconds(), err)
	if *final {
		t := time.Now()
		err := dtf.Finalize()
		fmt.Printf("FINALIZED %s rank %d after %.2fs: %v\n", comp, e.world, time.Since(t).Seconds(), err)
	}
	os.Exit(0)
}

// die ends this process the hard way, as a crash or the OOM killer would.
func die(e env, why string) {
	fmt.Printf("KILLED %s rank %d %s\n", dtf.ComponentName(), e.world, why)
	os.Stdout.Sync()
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// create defines the coupled file with one 2-D double variable.
func create(e env) (*pnetcdf.File, error) {
	f, err := pnetcdf.Create(e.comm, e.path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return nil, err
	}
	y, _ := f.DefDim("y", ny)
	x, _ := f.DefDim("x", nx)
	if _, err := f.DefVar("T", nc.DOUBLE, []int{y, x}); err != nil {
		return nil, err
	}
	return f, f.EndDef()
}

// rows returns this rank's block of rows out of n ranks.
func rows(rank, n int) (start, count []int64) {
	y0, y1 := int64(rank)*ny/int64(n), int64(rank+1)*ny/int64(n)
	return []int64{y0, 0}, []int64{y1 - y0, nx}
}

// put writes this writer rank's rows.
func put(e env, f *pnetcdf.File) error {
	st, ct := rows(e.rank, e.comm.Size())
	buf := make([]float64, ct[0]*ct[1])
	for i := range buf {
		buf[i] = float64(st[0]*nx) + float64(i)
	}
	return pnetcdf.PutVaraAll(f, 0, st, ct, buf)
}

// get reads this reader rank's rows and checks them.
func get(e env, f *pnetcdf.File) error {
	st, ct := rows(e.rank, e.comm.Size())
	buf := make([]float64, ct[0]*ct[1])
	if err := pnetcdf.GetVaraAll(f, 0, st, ct, buf); err != nil {
		return err
	}
	for i, v := range buf {
		if want := float64(st[0]*nx) + float64(i); v != want {
			return fmt.Errorf("element %d is %v, want %v", i, v, want)
		}
	}
	return nil
}

// caseKillWriter: the writer defines the file and puts its data, then the
// victim writer rank dies before the epoch ends. Readers are waiting in their
// get and must fail with dtf's timeout.
func caseKillWriter(e env) error {
	if e.writer {
		f, err := create(e)
		if err != nil {
			return err
		}
		if err := put(e, f); err != nil {
			return err
		}
		if e.rank == *victim {
			die(e, "after its puts")
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, e.path, nc.NOWRITE)
	if err != nil {
		return err
	}
	return errors.Join(get(e, f), f.Close())
}

// caseKillReader: the victim reader rank opens the file and dies before it
// asks for anything; the writer's close must fail with dtf's timeout.
func caseKillReader(e env) error {
	if e.writer {
		f, err := create(e)
		if err != nil {
			return err
		}
		if err := put(e, f); err != nil {
			return err
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, e.path, nc.NOWRITE)
	if err != nil {
		return err
	}
	if e.rank == *victim {
		die(e, "after its open")
	}
	return errors.Join(get(e, f), f.Close())
}

// caseNoReader: the reader component is in the job but never opens the file.
// The writer's close must fail with dtf's timeout.
func caseNoReader(e env) error {
	if e.writer {
		f, err := create(e)
		if err != nil {
			return err
		}
		if err := put(e, f); err != nil {
			return err
		}
		return f.Close()
	}
	idle()
	return nil
}

// caseNoEpoch: both sides open the file, but the reader never calls its
// Transfer; the writer's Transfer must fail with dtf's timeout.
func caseNoEpoch(e env) error {
	if e.writer {
		f, err := create(e)
		if err != nil {
			return err
		}
		if err := put(e, f); err != nil {
			return err
		}
		return dtf.Transfer(e.path)
	}
	if _, err := pnetcdf.Open(e.comm, e.path, nc.NOWRITE); err != nil {
		return err
	}
	idle()
	return nil
}

// caseNoCreate: the reader opens a coupled file that nobody creates; its open
// must fail with dtf's timeout naming the file and the writer component.
func caseNoCreate(e env) error {
	if e.writer {
		idle()
		return nil
	}
	f, err := pnetcdf.Open(e.comm, e.path, nc.NOWRITE)
	if err == nil {
		f.Close()
		return errors.New("open of a file nobody created succeeded")
	}
	return err
}

// idle keeps a component that never takes part alive past the other side's
// timeout, sleeping rather than spinning.
func idle() {
	d, _ := time.ParseDuration(os.Getenv("FAULT_IDLE"))
	if d <= 0 {
		d = 15 * time.Second
	}
	time.Sleep(d)
}
