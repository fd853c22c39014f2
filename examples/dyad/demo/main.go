// Command demo runs the DYAD example end to end on one machine (`make demo-dyad`): two
// agents with separate managed directories stand for two nodes; the producer job runs
// against the first, the consumer job (started first, so it must wait) against the second.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/couplet-hpc/couplet/dyad/agent"
)

func main() {
	n := flag.Int("frames", 8, "number of frames")
	size := flag.Int("size", 4<<20, "bytes per frame")
	flag.Parse()
	if err := run(*n, *size); err != nil {
		fmt.Fprintln(os.Stderr, "demo-dyad:", err)
		os.Exit(1)
	}
	fmt.Println("demo-dyad: OK")
}

func run(n, size int) error {
	tmp, err := os.MkdirTemp("", "couplet-dyad-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	for _, p := range []string{"producer", "consumer"} {
		fmt.Printf("demo-dyad: building %s\n", p)
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, p), "github.com/couplet-hpc/couplet/examples/dyad/"+p)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s: %w", p, err)
		}
	}
	nodeA, nodeB := filepath.Join(tmp, "nodeA"), filepath.Join(tmp, "nodeB")
	a, err := agent.Start(agent.Options{ProducerDir: nodeA, Socket: filepath.Join(tmp, "a.sock")})
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := agent.Start(agent.Options{ProducerDir: nodeB, Socket: filepath.Join(tmp, "b.sock"), KVS: a.KVSEndpoint(),
		TokenFile: a.TokenFile()}) // A generated the cluster token; B proves it holds it too
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Printf("demo-dyad: node A agent %s (embedded etcd %s), node B agent %s\n", a.Addr(), a.KVSEndpoint(), b.Addr())
	job := func(name, dirVar, dir, sock string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Env = append(os.Environ(), "DYAD_KVS_NAMESPACE=demo", dirVar+"="+dir, "DYAD_PATH_RELATIVE=1",
			"COUPLET_AGENT_SOCKET="+sock, "COUPLET_DYAD_TIMEOUT=60s")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		return cmd
	}
	cons := job("consumer", "DYAD_PATH_CONSUMER", nodeB, b.Socket(), "-frames", strconv.Itoa(n))
	prod := job("producer", "DYAD_PATH_PRODUCER", nodeA, a.Socket(), "-frames", strconv.Itoa(n), "-size", strconv.Itoa(size))
	if err := cons.Start(); err != nil {
		return err
	}
	var wg sync.WaitGroup
	var perr error
	wg.Add(1)
	go func() { defer wg.Done(); perr = prod.Run() }()
	cerr := cons.Wait()
	wg.Wait()
	if perr != nil {
		return fmt.Errorf("producer: %w", perr)
	}
	if cerr != nil {
		return fmt.Errorf("consumer: %w", cerr)
	}
	ca, cb := a.Counters(), b.Counters()
	fmt.Printf("demo-dyad: node A served %d fetches (%d bytes); node B staged %d files (%d bytes)\n",
		ca["fetches_served"], ca["bytes_served"], cb["stages"], cb["stage_bytes"])
	if ca["fetches_served"] != int64(n) || cb["stages"] != int64(n) {
		return fmt.Errorf("expected %d fetches and stagings", n)
	}
	return nil
}
