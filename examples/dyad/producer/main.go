// Command producer is the DYAD example's simulation: it writes a stream of frames under
// DYAD_PATH_PRODUCER with dyad.Create; each Close publishes the frame.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/examples/dyad/frames"
)

func main() {
	n := flag.Int("frames", 8, "number of frames")
	size := flag.Int("size", 4<<20, "bytes per frame")
	every := flag.Duration("every", 50*time.Millisecond, "time between frames (the 'timestep')")
	flag.Parse()
	for i := 0; i < *n; i++ {
		time.Sleep(*every)
		f, err := dyad.Create(frames.Name(i))
		if err == nil {
			_, err = f.Write(frames.Make(i, *size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "producer:", err)
			os.Exit(1)
		}
		fmt.Printf("producer: wrote and published %s (%d bytes)\n", frames.Name(i), *size)
	}
}
