package mpilaunch

import (
	"sync"
	"time"
)

// LaunchApart runs each app as its own mpirun, as separately launched jobs
// with their own MPI_COMM_WORLD, starting each gap after the one before, and
// returns their results in apps order once all have ended.
func LaunchApart(timeout, gap time.Duration, apps ...App) []Result {
	var wg sync.WaitGroup
	out := make([]Result, len(apps))
	for i, a := range apps {
		if i > 0 {
			time.Sleep(gap)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = Launch(timeout, a)
		}()
	}
	wg.Wait()
	return out
}
