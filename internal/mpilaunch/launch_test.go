package mpilaunch

import (
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentLaunches starts mpiruns four at a time, as the separately
// launched components of a coupled run start together. Sharing Open MPI's
// default session directory base, one launch in thirty to a hundred failed here
// ("File exists" in orte_init).
func TestConcurrentLaunches(t *testing.T) {
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("no mpirun")
	}
	const rounds, together = 40, 4
	for range rounds {
		var wg sync.WaitGroup
		res := make([]Result, together)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = Launch(time.Minute, App{NP: 1, Prog: "true"})
			}()
		}
		wg.Wait()
		for _, r := range res {
			if r.Err != nil {
				t.Fatalf("launch failed: %v\n%s", r.Err, tail(r.Output, 20))
			}
		}
	}
}

// TestLaunchWithBindsCores: BindCores in mpirun's environment binds each rank of a job
// with more ranks than cores to one core, round-robin; without it, Open MPI binds none.
func TestLaunchWithBindsCores(t *testing.T) {
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("no mpirun")
	}
	ncpu := runtime.NumCPU()
	np := 2 * ncpu // oversubscribed, as the bench's jobs are
	app := App{NP: np, Prog: "grep", Args: []string{"Cpus_allowed_list", "/proc/self/status"}}
	allowed := func(r Result) map[int]string {
		t.Helper()
		if r.Err != nil {
			t.Fatalf("launch failed: %v\n%s", r.Err, tail(r.Output, 20))
		}
		got := map[int]string{}
		for rank := range np {
			for _, l := range RankLines(r.Output, rank) {
				if list, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
					got[rank] = strings.TrimSpace(list)
				}
			}
		}
		if len(got) != np {
			t.Fatalf("%d ranks reported, want %d:\n%s", len(got), np, r.Output)
		}
		return got
	}
	bound := allowed(LaunchWith(time.Minute, []string{BindCores}, app))
	cores := map[string]int{}
	for rank, list := range bound {
		if strings.ContainsAny(list, ",-") {
			t.Errorf("bound: rank %d may run on CPUs %s, want one", rank, list)
		}
		cores[list]++
	}
	if len(cores) != ncpu {
		t.Errorf("bound: ranks on %v, want %d cores with %d ranks each", cores, ncpu, np/ncpu)
	}
	if ncpu > 1 {
		for rank, list := range allowed(Launch(time.Minute, app)) {
			if !strings.ContainsAny(list, ",-") {
				t.Errorf("unbound: rank %d may run on CPU %s only, want every CPU", rank, list)
			}
		}
	}
}

// TestTimeoutShowsStates: a job that outlives its timeout is killed, and its error
// says how each process sat at the timeout, so that a stall in the kernel (threads in
// D) shows apart from a job waiting on itself (here two ranks sleeping, in S).
func TestTimeoutShowsStates(t *testing.T) {
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("no mpirun")
	}
	r := Launch(2*time.Second, App{NP: 2, Prog: "sleep", Args: []string{"60"}})
	if !r.TimedOut || r.Err == nil {
		t.Fatalf("timed out %v, err %v; want a timeout", r.TimedOut, r.Err)
	}
	if r.Elapsed > 30*time.Second {
		t.Errorf("the job took %v to end after a 2 s timeout", r.Elapsed)
	}
	msg := r.Err.Error()
	if n := strings.Count(msg+"\n", " sleep: 1 S\n"); n != 2 {
		t.Errorf("%d ranks reported as one sleeping thread, want 2:\n%s", n, msg)
	}
	if strings.Contains(msg, " in D: ") {
		t.Errorf("a sleeping rank reported in D:\n%s", msg)
	}
	if d := Describe(r); !strings.Contains(d, " sleep: 1 S") {
		t.Errorf("Describe leaves out the states:\n%s", d)
	}
}
