package sysmon

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestFind(t *testing.T) {
	const self = 1000
	sleep, futex := unix.SYS_NANOSLEEP, unix.SYS_FUTEX
	const usleep, cgo, none = 0x10, 0x20, 0x30 // program counters
	names := map[uint64]string{usleep: "runtime.usleep", cgo: "syscall.Syscall6"}
	type look struct {
		nr int // -1: running
		pc uint64
	}
	for _, c := range []struct {
		name  string
		state map[int][]look // per look, the last one repeated
		want  int            // 0: an error
	}{
		{"monitor among others", map[int][]look{1000: {{0, cgo}}, 1001: {{futex, cgo}}, 1002: {{281, none}}, 1003: {{sleep, usleep}}, 1004: {{sleep, none}}}, 1003},
		{"C thread in nanosleep is not it", map[int][]look{1001: {{sleep, none}}, 1002: {{futex, usleep}}}, 0},
		{"Go nanosleep elsewhere is not it", map[int][]look{1001: {{sleep, cgo}}}, 0},
		{"running at first, asleep later", map[int][]look{1001: {{-1, 0}, {-1, 0}, {sleep, usleep}}}, 1001},
		{"never seen asleep", map[int][]look{1001: {{-1, 0}}, 1002: {{futex, usleep}}}, 0},
		{"the caller itself is not it", map[int][]look{self: {{sleep, usleep}}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tids []int
			for tid := range c.state {
				tids = append(tids, tid)
			}
			looks := map[int]int{}
			sys := func(tid int) (int, uint64, bool) {
				s := c.state[tid]
				l := s[min(looks[tid], len(s)-1)]
				looks[tid]++
				return l.nr, l.pc, l.nr >= 0
			}
			name := func(pc uint64) string { return names[pc] }
			looksLeft := 4
			again := func() bool { looksLeft--; return looksLeft > 0 }
			got, err := find(self, func() ([]int, error) { return tids, nil }, sys, name, again)
			if c.want == 0 {
				if err == nil {
					t.Fatalf("found thread %d, want an error", got)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("find = %d, %v; want %d", got, err, c.want)
			}
		})
	}
}

// TestLower lowers this test binary's own monitor: the thread found must be
// another than the calling one, sleeping in the runtime's usleep, and at Nice
// afterwards. A Go release whose monitor sleeps otherwise fails here.
func TestLower(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid, err := Lower()
	if err != nil {
		t.Fatal(err)
	}
	if tid == unix.Gettid() {
		t.Fatalf("Lower chose the calling thread %d", tid)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command's closing parenthesis start at field 3; nice
	// is field 19.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	if nice, _ := strconv.Atoi(f[19-3]); nice != Nice {
		t.Fatalf("thread %d has nice %s after Lower, want %d", tid, f[19-3], Nice)
	}
}
