package bench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// pageReportingParams holds free page reporting's settings (module page_reporting).
const pageReportingParams = "/sys/module/page_reporting/parameters"

// reportAfter is how long freed memory stays free before free page reporting hands it
// back to the VM's host, while a run measures. A kernel that reports at once
// (min_free_ms 0) gives each file a staging writes and removes back to the host, and the
// next round that writes a file faults the memory in afresh from the host: on a 2-core
// AMD EPYC VM, one launch of case 4 at 1 GiB (7 rounds, every way) had 10 and 8 rounds
// over 0.5 s among the ways that take 0.2-0.4 s, against 1 and 2 with reportAfter, and
// the ucx DTL (sm) took 2.67 (0.85-4.86) GB/s against 4.71 (4.53-5.05); two interleaved
// pairs of launches, the host took back 3.3-3.7 GiB a launch against none. A minute
// outlasts every round, so memory freed by one is still there for the next.
const reportAfter = time.Minute

// deferPageReporting makes free page reporting under params wait reportAfter before it
// reports freed memory, where its kernel has that setting (min_free_ms) and reports
// sooner, and returns what restores it (as applySettings) and the change made, e.g.
// "min_free_ms 0 -> 60000"; with nothing to change, restore does nothing and change is
// empty.
func deferPageReporting(params string) (restore func() error, change string, err error) {
	path := filepath.Join(params, "min_free_ms")
	was, err := strconv.ParseInt(readTrim(path), 10, 64)
	want := reportAfter.Milliseconds()
	if err != nil || was >= want {
		return func() error { return nil }, "", nil // not this kernel's setting, or already later
	}
	set := strconv.FormatInt(want, 10)
	restore, err = applySettings([]setting{{path: path, was: strconv.FormatInt(was, 10), set: set}})
	if err != nil {
		return restore, "", err
	}
	return restore, fmt.Sprintf("min_free_ms %d -> %s", was, set), nil
}
