// Package mpilaunch starts MPI jobs: one mpirun for MPMD applications (Launch) or
// one per application for separately launched components (LaunchApart), with the
// flags this platform needs, a timeout that kills every rank, and each rank's
// output tagged. It is production code (the bench command uses it) and imports no
// testing; internal/mpitest wraps it for tests.
package mpilaunch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// App is one application context of an mpirun launch.
type App struct {
	NP   int      // number of ranks
	Prog string   // executable, usually from Build
	Args []string // arguments
	Env  []string // extra KEY=VALUE settings for this application only
}

// PlatformEnv is what mpirun needs on these machines: running as root, more
// ranks than cores, and vader without the (slower) CMA single copy.
var PlatformEnv = []string{
	"OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
	"OMPI_MCA_rmaps_base_oversubscribe=1",
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
}

// BindCores, in mpirun's environment (LaunchWith), binds each rank to a core, round-robin,
// where ranks outnumber cores too: Open MPI binds no rank of an oversubscribed job
// otherwise, and the kernel then moves ranks between cores as they sleep and wake.
const BindCores = "OMPI_MCA_hwloc_base_binding_policy=core:overload-allowed"

// tmpdirVar sets the base of mpirun's session directory.
const tmpdirVar = "OMPI_MCA_orte_tmpdir_base"

// DefaultTimeout applies when Launch is given a timeout of zero.
const DefaultTimeout = 60 * time.Second

// Result is the outcome of one launch.
type Result struct {
	Output   string        // every rank's output, each line tagged with its rank
	Err      error         // nil when mpirun exited 0
	TimedOut bool          // the job was killed at its timeout
	Elapsed  time.Duration // wall time of the launch
}

// Args returns the mpirun command line for apps.
func Args(apps ...App) []string {
	args := []string{"--oversubscribe", "--tag-output"}
	for i, a := range apps {
		if i > 0 {
			args = append(args, ":")
		}
		args = append(args, "-np", fmt.Sprint(a.NP))
		if len(a.Env) > 0 {
			// env(1) scopes the settings to this application context;
			// mpirun's -x would apply them to every context.
			args = append(args, "env")
			args = append(args, a.Env...)
		}
		args = append(args, a.Prog)
		args = append(args, a.Args...)
	}
	return args
}

// Launch runs apps under mpirun and reports the outcome without touching a
// test. On timeout it terminates mpirun and every process it started.
func Launch(timeout time.Duration, apps ...App) Result { return LaunchWith(timeout, nil, apps...) }

// LaunchWith is Launch with mpirunEnv (KEY=VALUE) added to mpirun's own environment:
// settings of the whole job (binding, mapping) go there, not to an application's Env.
func LaunchWith(timeout time.Duration, mpirunEnv []string, apps ...App) Result {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if len(apps) == 0 {
		return Result{Err: errors.New("mpilaunch: no applications to launch")}
	}
	cmd := exec.Command("mpirun", Args(apps...)...)
	cmd.Env = append(append(os.Environ(), PlatformEnv...), mpirunEnv...)
	if _, set := os.LookupEnv(tmpdirVar); !set {
		// Open MPI 4's mpirun fails its start ("File exists") when another
		// one creates the session directory under the same base at the same
		// moment: every launch gets a base of its own.
		base, err := os.MkdirTemp("", "mpirun-")
		if err != nil {
			return Result{Err: fmt.Errorf("mpilaunch: session directory: %w", err)}
		}
		defer os.RemoveAll(base)
		cmd.Env = append(cmd.Env, tmpdirVar+"="+base)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out OutputBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Ranks that outlive mpirun must not keep Wait blocked on the pipe.
	cmd.WaitDelay = 5 * time.Second
	stop, unwatch := stopSignals()
	defer unwatch()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{Err: fmt.Errorf("mpilaunch: start mpirun: %w", err)}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var r Result
	select {
	case r.Err = <-done:
	case s := <-stop:
		killJob(cmd.Process.Pid, descendants(cmd.Process.Pid), done)
		r.Err = fmt.Errorf("mpilaunch: %v: the job was ended", s)
		// Raised again with no channel of this launch listening, the signal
		// does what it would have done uncaught (unless another handler
		// catches it too).
		unwatch()
		syscall.Kill(os.Getpid(), s.(syscall.Signal))
	case <-time.After(timeout):
		r.TimedOut = true
		// How the processes sit at the timeout tells a job that waits on itself
		// (threads sleeping in S) from one the kernel holds (D).
		procs := descendants(cmd.Process.Pid)
		at := states(procs)
		killJob(cmd.Process.Pid, procs, done)
		r.Err = fmt.Errorf("mpilaunch: timed out after %v; its processes then (threads per kernel state):\n%s", timeout, strings.TrimRight(at, "\n"))
	}
	r.Elapsed = time.Since(start)
	r.Output = out.String()
	return r
}

// stopSignals relays SIGINT and SIGTERM, those the process does not ignore,
// while a launch runs: mpirun runs in a process group of its own, so a
// signal to this process (or Ctrl-C at its terminal) reaches neither mpirun
// nor its ranks, and they ran on after this process died. The function
// returned stops the relay.
func stopSignals() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 1)
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			signal.Notify(c, s)
		}
	}
	return c, func() { signal.Stop(c) }
}

// killJob stops mpirun and its ranks: Open MPI puts each rank in its own
// process group, so the descendants (procs) are collected first, then mpirun
// is asked to end the job, and whatever is left is killed.
func killJob(pid int, procs []int, done <-chan error) {
	syscall.Kill(-pid, syscall.SIGTERM)
	exited := false
	select {
	case <-done:
		exited = true
	case <-time.After(3 * time.Second):
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range procs {
		syscall.Kill(p, syscall.SIGKILL)
	}
	if !exited {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	}
}

// Describe explains a failed launch, rank by rank.
func Describe(r Result) string {
	var b strings.Builder
	if r.TimedOut {
		// r.Err says how the processes sat at the timeout.
		fmt.Fprintf(&b, "mpilaunch: job killed after %v: %v\n", r.Elapsed.Round(time.Millisecond), r.Err)
	} else {
		fmt.Fprintf(&b, "mpilaunch: job failed: %v\n", r.Err)
	}
	fails := Failures(r.Output)
	if len(fails) == 0 {
		b.WriteString("no rank reported a failure; output:\n")
		b.WriteString(tail(r.Output, 60))
		return b.String()
	}
	for _, f := range fails {
		fmt.Fprintf(&b, "  rank %d: %s\n", f.Rank, f.Msg)
	}
	return b.String()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = append([]string{"...\n"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "")
}

// OutputBuffer is a bytes.Buffer that a process's stdout and stderr may
// write at once (mpirun writes both).
type OutputBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *OutputBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *OutputBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
