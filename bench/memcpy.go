package bench

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// MeasureMemcpy times Go's copy of size bytes reps times (after one untimed
// copy that faults the pages in) and returns the bandwidth in bytes copied
// per second, or the error of mapping the buffers. It is the physical ceiling
// of any exchange on this machine: every byte that reaches a reader's array
// is at least written there once.
//
// The buffers are one mapping outside the Go heap, unmapped at the end. On the heap they
// left the harness's process with a heap goal of twice their size, and every allocation
// of the cases after it on fresh pages until the next collection: the rpc DTL's 1 MiB
// staging took 2.2-2.3 ms there against 1.5 once its hash buffers were reused.
func MeasureMemcpy(size int64, reps int) (Summary, error) {
	mem, err := unix.Mmap(-1, 0, int(2*size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return Summary{}, fmt.Errorf("bench: memcpy buffers: %w", err)
	}
	defer unix.Munmap(mem)
	src, dst := mem[:size:size], mem[size:]
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
	return Summarize(secs).Rate(float64(size)), nil
}
