package dyad_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/couplet-hpc/couplet/dyad"
)

// stepLog records the steps a client reports.
type stepLog struct {
	mu    sync.Mutex
	steps []*recStep
}

type recStep struct {
	op, path string
	total    int64
	updates  []int64
	ends     []error
}

func (r *recStep) Update(done int64) { r.updates = append(r.updates, done) }
func (r *recStep) End(err error)     { r.ends = append(r.ends, err) }

func (l *stepLog) progress(op, upath string, total int64) dyad.Step {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &recStep{op: op, path: upath, total: total}
	l.steps = append(l.steps, s)
	return s
}

// TestProgressSteps checks what a client tells its Progress: one step per produce (the
// checksum pass, to the last byte) and per staging (the temporary file's growth), each
// ended once with its outcome; a consume served by the local copy is no step.
func TestProgressSteps(t *testing.T) {
	prod, cons := pair(t)
	var pl, cl stepLog
	prod.client.SetProgress(pl.progress)
	cons.client.SetProgress(cl.progress)
	const size = 3<<20 + 5
	data := randBytes(size, 60)
	os.WriteFile(filepath.Join(prod.dir, "p.bin"), data, 0o644)
	if _, err := prod.client.Produce("p.bin"); err != nil {
		t.Fatal(err)
	}
	consumeCheck(t, cons, "p.bin", data)
	consumeCheck(t, cons, "p.bin", data) // the local copy: no step
	// The owner's file changes size after it was published: the staging fails.
	os.WriteFile(filepath.Join(prod.dir, "q.bin"), data[:1000], 0o644)
	if _, err := prod.client.Produce("q.bin"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(prod.dir, "q.bin"), data[:2000], 0o644)
	_, qerr := cons.client.Consume("q.bin")
	if qerr == nil {
		t.Fatal("consume of a file changed after it was published succeeded")
	}

	check := func(who string, got []*recStep, want []struct {
		op, path string
		total    int64
		ok       bool
	}) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s reported %d steps, want %d", who, len(got), len(want))
		}
		for i, w := range want {
			s := got[i]
			if s.op != w.op || s.path != w.path || s.total != w.total {
				t.Errorf("%s step %d: %s %s of %d, want %s %s of %d", who, i, s.op, s.path, s.total, w.op, w.path, w.total)
			}
			if len(s.ends) != 1 || (s.ends[0] == nil) != w.ok {
				t.Errorf("%s step %d (%s): ended %v, want once, success %v", who, i, s.path, s.ends, w.ok)
			}
			for j, u := range s.updates {
				if u < 0 || u > s.total || j > 0 && u < s.updates[j-1] {
					t.Errorf("%s step %d (%s): updates %v, want non-decreasing within 0..%d", who, i, s.path, s.updates, s.total)
					break
				}
			}
			if w.op == "produce" && (len(s.updates) == 0 || s.updates[len(s.updates)-1] != s.total) {
				t.Errorf("%s step %d (%s): updates %v, want the checksum pass to reach %d", who, i, s.path, s.updates, s.total)
			}
		}
	}
	type st = struct {
		op, path string
		total    int64
		ok       bool
	}
	check("producer", pl.steps, []st{{"produce", "p.bin", size, true}, {"produce", "q.bin", 1000, true}})
	check("consumer", cl.steps, []st{{"consume", "p.bin", size, true}, {"consume", "q.bin", 1000, false}})
	if e := cl.steps[1].ends[0]; e == nil || !strings.Contains(qerr.Error(), e.Error()) {
		t.Errorf("the failed staging ended with %v, the consume with %v", e, qerr)
	}
}
