package dyad_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// TestLoad64Consumers has 64 consumers, each with its own client as separate
// ranks would have, open one 8 MiB file at once: every one gets the exact
// bytes and the producer serves the file once.
func TestLoad64Consumers(t *testing.T) {
	prod, cons := pair(t)
	data := randBytes(8<<20, 31)
	produce(t, prod, "one.bin", data)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(t, cons.dir, cons.socket, nil)
			defer c.Close()
			p, err := c.Consume("one.bin")
			if err != nil {
				errs <- err
				return
			}
			got, err := os.ReadFile(p)
			if err != nil || string(got) != string(data) {
				errs <- fmt.Errorf("consumer %d: %d bytes, err %v, differ from the produced file", i, len(got), err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := prod.agent.Counters()["fetches_served"]; n != 1 {
		t.Errorf("64 consumers caused %d fetches, want 1", n)
	}
	noTemps(t, cons.dir)
	t.Logf("64 consumers of one 8 MiB file: %v", time.Since(start).Round(time.Millisecond))
}

// TestLoad1000SmallFiles stages 1000 small files (1-4 KiB) from one node to
// another with 8 consumers in parallel, and checks every byte.
func TestLoad1000SmallFiles(t *testing.T) {
	if testing.Short() || os.Getenv("COUPLET_RELIABILITY") == "" {
		t.Skip("slow: run with make reliability (COUPLET_RELIABILITY=1)")
	}
	const n = 1000
	prod, cons := pair(t)
	files := make([][]byte, n)
	start := time.Now()
	for i := range files {
		files[i] = randBytes(1024+(i*37)%3072, uint64(100+i))
		produce(t, prod, fmt.Sprintf("d%02d/f%04d.dat", i%16, i), files[i])
	}
	produced := time.Since(start)
	start = time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(t, cons.dir, cons.socket, nil)
			defer c.Close()
			for i := range next {
				rel := fmt.Sprintf("d%02d/f%04d.dat", i%16, i)
				p, err := c.Consume(rel)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", rel, err)
					continue
				}
				if got, err := os.ReadFile(p); err != nil || string(got) != string(files[i]) {
					errs <- fmt.Errorf("%s: %d bytes (err %v) differ from the %d produced", rel, len(got), err, len(files[i]))
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ctr := prod.agent.Counters()
	if ctr["fetches_served"] != n {
		t.Errorf("fetches served %d, want %d", ctr["fetches_served"], n)
	}
	noTemps(t, cons.dir)
	t.Logf("1000 small files: produced in %v, staged and checked in %v (%.2f ms/file)", produced.Round(time.Millisecond),
		time.Since(start).Round(time.Millisecond), float64(time.Since(start).Microseconds())/1000/n)
}
