package mpilaunch

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// procRoot is where the processes are read from: /proc, or a tree of the same shape in a test.
var procRoot = "/proc"

// descendants lists every live process below pid, read from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir(procRoot)
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads the parent pid from /proc/PID/stat.
func parentOf(pid int) int {
	f := statFields(procRoot + "/" + strconv.Itoa(pid) + "/stat")
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

// statFields returns the fields of a /proc stat file after the ")" that ends the
// command name, which may itself hold spaces: the state letter first, then the
// parent pid (nil when unreadable).
func statFields(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// states describes pids as a stall leaves them, a line each: the command and how many
// of its threads are in each kernel state (R running, S sleeping, D uninterruptible),
// then a line for each thread in D saying where in the kernel it waits (waitOf). A job
// whose ranks all sleep in S or spin in R waits on itself; one with a thread stuck in D
// waits on the kernel, and then the kernel's own threads that were running or in D
// follow (kernelThreads): a rank's memory lock held by one of them (khugepaged, a
// per-CPU worker) that the spinning ranks starve is how such stalls looked so far.
func states(pids []int) string {
	var b strings.Builder
	held := false
	for _, p := range pids {
		dir := procRoot + "/" + strconv.Itoa(p)
		comm, err := os.ReadFile(dir + "/comm")
		if err != nil {
			continue // gone meanwhile
		}
		fmt.Fprintf(&b, "  pid %d %s:", p, strings.TrimSpace(string(comm)))
		tids, _ := os.ReadDir(dir + "/task")
		counts := map[string]int{}
		var stuck []string
		for _, t := range tids {
			tdir := dir + "/task/" + t.Name()
			st := stateOf(tdir + "/stat")
			counts[st]++
			if st == "D" {
				held = true
				stuck = append(stuck, fmt.Sprintf("    thread %s in D: %s\n", t.Name(), waitOf(tdir)))
			}
		}
		for _, st := range slices.Sorted(maps.Keys(counts)) {
			fmt.Fprintf(&b, " %d %s", counts[st], st)
		}
		b.WriteString("\n" + strings.Join(stuck, ""))
	}
	if held {
		b.WriteString(kernelThreads())
	}
	return b.String()
}

// kthreadd is the parent of every kernel thread.
const kthreadd = 2

// kernelThreads lists the kernel's threads that are running (R) or in D, a line each
// with where a thread in D waits.
func kernelThreads() string {
	var b strings.Builder
	for _, p := range descendants(kthreadd) {
		dir := procRoot + "/" + strconv.Itoa(p)
		st := stateOf(dir + "/stat")
		if st != "R" && st != "D" {
			continue
		}
		comm, _ := os.ReadFile(dir + "/comm")
		fmt.Fprintf(&b, "  kernel thread %d %s: %s", p, strings.TrimSpace(string(comm)), st)
		if st == "D" {
			b.WriteString(": " + waitOf(dir))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// waitOf names where the thread at tdir waits in the kernel: the innermost functions
// of its kernel stack where that is readable (root), else its wait channel.
func waitOf(tdir string) string {
	var frames []string
	if stack, err := os.ReadFile(tdir + "/stack"); err == nil {
		for _, f := range strings.Fields(string(stack)) {
			if !strings.HasPrefix(f, "[<") {
				name, _, _ := strings.Cut(f, "+")
				frames = append(frames, name)
			}
		}
	}
	if len(frames) == 0 {
		wchan, _ := os.ReadFile(tdir + "/wchan")
		return strings.TrimSpace(string(wchan))
	}
	return strings.Join(frames[:min(len(frames), 6)], " <- ")
}

// stateOf reads the state letter of a thread's /proc stat file ("?" when unreadable).
func stateOf(path string) string {
	if f := statFields(path); len(f) > 0 {
		return f[0]
	}
	return "?"
}
