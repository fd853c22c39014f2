package letkf

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ResidentKiB returns this process's resident set size (VmRSS of
// /proc/self/status) in KiB: what the kernel holds in memory for it, heap,
// stacks, MPI and UCX buffers alike, unlike the Go heap alone.
func ResidentKiB() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "VmRSS:")
		if !ok {
			continue
		}
		// The line reads "VmRSS:     12345 kB".
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", s.Text())
		}
		return strconv.ParseUint(f[0], 10, 64)
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}
