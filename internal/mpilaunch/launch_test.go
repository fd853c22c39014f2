package mpilaunch

import (
	"os/exec"
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
