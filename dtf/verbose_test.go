package dtf_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// TestVerboseDTFConfig runs a DTF-style config: a filename without '%' that couples
// the path containing it, iodb_range driving the partition, and keys and variables
// that have no effect here. With DTF_VERBOSE_LEVEL=1 rank 0 of each component prints
// the configuration with a note per no-effect setting and, at finalize, warns about the
// [FILE] section that matched no file; DTF_PRINT_STATS=1 makes every rank print its
// statistics. The readers check every value they receive.
func TestVerboseDTFConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "dtf.ini")
	text := `[INFO]
ncomp = 2
comp_name = "w"
comp_name = "r"
timeout = 60
num_matchers = 2
iodb_range = 3
do_checksum = 1

[FILE]
filename = "decomp"
comp1 = "w"
comp2 = "r"
mode = "transfer"

[FILE]
filename = "never_opened"
comp1 = "w"
comp2 = "r"
`
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := mpitest.Build(t, prog)
	a := []string{"-cfg", cfg, "-dir", dir, "-case", "decomp", "-wgrid", "2x1", "-rgrid", "1x2", "-ny", "14", "-nx", "6"}
	env := []string{"DTF_VERBOSE_LEVEL=1", "DTF_PRINT_STATS=1", "DTF_USE_MSG_BUFFER=1"}
	out := mpitest.Run(t, 3*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a, Env: env}, mpitest.App{NP: 2, Prog: bin, Args: a, Env: env})
	for _, want := range []string{
		"couplet: component w (2 ranks), Go runtime monitor thread ",
		"couplet: component r (2 ranks), Go runtime monitor thread ",
		"partition range (iodb_range 3)",
		"verbose 1",
		cfg + ":8: do_checksum = 1: accepted for DTF compatibility, has no effect here",
		"environment: DTF_USE_MSG_BUFFER=1: accepted for DTF compatibility, has no effect here",
		`[FILE] filename "never_opened" matched no file that component w opened`,
		`[FILE] filename "never_opened" matched no file that component r opened`,
		"couplet stats: w rank 0: epochs 1",
		"couplet stats: w rank 1: epochs 1",
		"couplet stats: r rank 0: epochs 1",
		"couplet stats: r rank 1: epochs 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := len(regexp.MustCompile(`Go runtime monitor thread \d+ at nice 19\n`).FindAllString(out, -1)); n != 2 {
		t.Errorf("%d components lowered the runtime's monitor thread to nice 19, want 2", n)
	}
	// Readers keep matching, waiting for the schedules and for the writers,
	// and transfer apart; their ranks do no matching.
	if !regexp.MustCompile(`couplet stats: r rank 0: epochs 1, requests \d+, bytes \d+, messages \d+, match 0s, sched \S+, wait \S+, transfer \S+, replay hits 0 misses 0\n`).MatchString(out) {
		t.Error("no statistics line with match, sched, wait and transfer for reader rank 0")
	}
	if strings.Contains(out, `"decomp" matched no file`) {
		t.Error("the section that coupled decomp.nc was reported as unmatched")
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// traceLine is one DTF_VERBOSE_LEVEL=2 line about a control message.
var traceLine = regexp.MustCompile(`(?m)couplet: trace (\d+) rank (\d+) (sent|got) (\S+) (?:to|from) rank (\d+): (\S+) session (\d+) epoch (\d+)$`)

// TestVerboseTrace runs the decomposition case with DTF_VERBOSE_LEVEL=2, at which every
// rank prints a line per control message it sends or gets and per matching it does.
// Every message sent (but the advisory FORGET, whose receiver may have left) was got
// exactly once by the rank it went to, no earlier than it was sent (the ranks share
// the node's clock), and the protocol's messages all appear.
func TestVerboseTrace(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "transfer")
	bin := mpitest.Build(t, prog)
	a := []string{"-cfg", cfg, "-dir", dir, "-case", "decomp", "-wgrid", "2x1", "-rgrid", "1x2", "-ny", "14", "-nx", "6"}
	env := []string{"DTF_VERBOSE_LEVEL=2"}
	out := mpitest.Run(t, 3*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a, Env: env}, mpitest.App{NP: 2, Prog: bin, Args: a, Env: env})
	type key struct {
		kind, path   string
		from, to     string
		session, epo string
	}
	sent, got := map[key][]int64{}, map[key][]int64{}
	kinds := map[string]bool{}
	for _, m := range traceLine.FindAllStringSubmatch(out, -1) {
		ns, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		k := key{kind: m[4], path: m[6], session: m[7], epo: m[8]}
		if m[3] == "sent" {
			k.from, k.to = m[2], m[5]
			if k.kind != "FORGET" {
				sent[k] = append(sent[k], ns)
			}
		} else {
			k.from, k.to = m[5], m[2]
			got[k] = append(got[k], ns)
		}
		kinds[k.kind] = true
	}
	for _, want := range []string{"HEADER", "WRITE_REQS", "READ_REQS", "SCHEDULE", "EXPECT", "EPOCH_DONE"} {
		if !kinds[want] {
			t.Errorf("no trace line of a %s message", want)
		}
	}
	for k, ss := range sent {
		gs := got[k]
		if len(gs) != len(ss) {
			t.Errorf("%v: sent %d times, got %d times", k, len(ss), len(gs))
			continue
		}
		// Messages of one sender and tag arrive in the order sent.
		for i := range ss {
			if gs[i] < ss[i] {
				t.Errorf("%v: message %d got at %d, before it was sent at %d", k, i, gs[i], ss[i])
			}
		}
	}
	for k, gs := range got {
		if k.kind != "FORGET" && len(sent[k]) == 0 {
			t.Errorf("%v: got %d times, never sent", k, len(gs))
		}
	}
	if !regexp.MustCompile(`(?m)couplet: trace \d+ rank \d+ matched [1-9]\d* rounds in \S+: \S*decomp\S* session 0 epoch 0$`).MatchString(out) {
		t.Error("no trace line of a matching")
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}
