package bench

import (
	"runtime"
	"time"
)

// MeasureMemcpy times Go's copy of size bytes reps times (after one untimed
// copy that faults the pages in) and returns the bandwidth in bytes copied
// per second. It is the physical ceiling of any exchange on this machine:
// every byte that reaches a reader's array is at least written there once.
func MeasureMemcpy(size int64, reps int) Summary {
	src := make([]byte, size)
	dst := make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src)
	secs := make([]float64, 0, reps)
	for range reps {
		t0 := time.Now()
		copy(dst, src)
		secs = append(secs, time.Since(t0).Seconds())
	}
	runtime.KeepAlive(dst)
	return Summarize(secs).Rate(float64(size))
}
