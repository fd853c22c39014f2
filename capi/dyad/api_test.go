package dyadlib

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func example(parts ...string) string {
	return filepath.Join(append([]string{Dir(), "..", "..", "examples", "dyad"}, parts...)...)
}

// TestCClient: a C program written against DYAD's client API stages files between two
// nodes: dyad_consume and dyad_get_metadata + dyad_consume_w_metadata (each started
// before the file is produced, and blocking), dyad_produce after dyad_init.
func TestCClient(t *testing.T) {
	prod, cons := twoNodes(t)
	stage := againstLib(t, "stage", "cc", example("capi", "stage.c"))
	penv, cenv := producerEnv(t, prod), consumerEnv(t, cons)
	if err := os.MkdirAll(filepath.Join(prod.dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, mode := range []string{"consume", "consume-meta"} {
		t.Run(mode, func(t *testing.T) {
			rel := filepath.Join("c", mode+".txt")
			consPath := filepath.Join(cons.dir, rel)
			c := start(t, cenv, stage, mode, consPath)
			awaitWaiting(t, cons, int64(i+1), c, consPath)
			run(t, penv, stage, "produce", filepath.Join(prod.dir, rel), "from C "+mode+"\n")
			want := "from C " + mode + "\n"
			if mode == "consume-meta" {
				want = "fpath=" + rel + "\n" + want
			}
			if out := c.wait(t, 2*time.Minute); out != want {
				t.Fatalf("consumer printed %q, want %q", out, want)
			}
		})
	}
	// Linked (not preloaded), the library leaves the program's own opens alone: the
	// producer published each file once, through dyad_produce.
	if c := prod.agent.Counters(); c["publishes"] != 2 {
		t.Fatalf("producer agent published %d times, want 2", c["publishes"])
	}
	// Without waiting, a file not produced is DYAD_RC_NOTFOUND.
	if out := run(t, cenv, stage, "peek", filepath.Join(cons.dir, "never.txt")); out != "rc=-2002\n" {
		t.Fatalf("peek printed %q, want rc=-2002", out)
	}
	// A path outside the managed directory is DYAD_RC_UNTRACKED, with a log line.
	p := start(t, cenv, stage, "consume", filepath.Join(t.TempDir(), "elsewhere.txt"))
	<-p.done
	if p.waitEr == nil || !strings.Contains(p.errb.String(), "rc -1005") || !strings.Contains(p.errb.String(), "is not under the consumer managed directory") {
		t.Fatalf("consume outside the managed directory: %v, stderr %q", p.waitEr, p.errb.String())
	}
}

// TestCxxStreams runs the C++ stream example between two nodes: the consumer's
// ifstream_dyad blocks in open until the producer's ofstream_dyad closes.
func TestCxxStreams(t *testing.T) {
	prod, cons := twoNodes(t)
	prog := againstLib(t, "streams", "g++", "-std=c++17", example("streams", "streams.cpp"))
	consPath := filepath.Join(cons.dir, "cxx", "lines.txt")
	if err := os.MkdirAll(filepath.Join(prod.dir, "cxx"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := start(t, consumerEnv(t, cons), prog, "consume", consPath)
	awaitWaiting(t, cons, 1, c, consPath)
	run(t, producerEnv(t, prod), prog, "produce", filepath.Join(prod.dir, "cxx", "lines.txt"), "1000")
	if out := c.wait(t, 2*time.Minute); out != "1000 lines, sum 500500\n" {
		t.Fatalf("consumer printed %q", out)
	}
}
