// Command consumer is the DYAD example's analysis job: it opens each frame under
// DYAD_PATH_CONSUMER with dyad.Open, which blocks until the frame is produced and staged,
// and checks every byte.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/examples/dyad/frames"
)

func main() {
	n := flag.Int("frames", 8, "number of frames")
	flag.Parse()
	c, err := dyad.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
	var total int64
	start := time.Now()
	for i := 0; i < *n; i++ {
		t := time.Now()
		f, err := c.Open(frames.Name(i))
		if err != nil {
			fmt.Fprintln(os.Stderr, "consumer:", err)
			os.Exit(1)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err == nil {
			err = frames.Check(i, b)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "consumer:", err)
			os.Exit(1)
		}
		total += int64(len(b))
		fmt.Printf("consumer: %s ok (%d bytes, waited+staged %v)\n", frames.Name(i), len(b), time.Since(t).Round(time.Microsecond))
	}
	el := time.Since(start)
	fmt.Printf("consumer: %d frames, %.1f MiB checked in %v\n", *n, float64(total)/(1<<20), el.Round(time.Millisecond))
	for _, s := range c.LocatorStats() {
		fmt.Printf("consumer: locator %-5v hits %3d misses %3d median %v\n", s.Level, s.Hits, s.Misses, s.Median)
	}
}
