package mpilaunch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStates reads a process tree of /proc's shape: a rank with two threads stuck in
// the kernel (D: one with a readable kernel stack, one with only its wait channel) and
// one with a running and a sleeping thread, and a pid that is gone.
func TestStates(t *testing.T) {
	root := t.TempDir()
	write := func(path, s string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("10/comm", "exchange\n")
	write("10/task/10/stat", "10 (exchange) S 1 10 10 0\n")
	write("10/task/11/stat", "11 (exch ange)) D 1 10 10 0\n") // a name with a space and a ')'
	write("10/task/11/wchan", "rwsem_down_write_slowpath")
	write("10/task/11/stack", "[<0>] rwsem_down_write_slowpath+0x2a0/0x5e0\n[<0>] unlink_anon_vmas+0x5b/0x1c0\n[<0>] free_pgtables+0xd1/0x230\n")
	write("10/task/12/stat", "12 (exchange) D 1 10 10 0\n") // no readable stack: its wait channel
	write("10/task/12/wchan", "folio_wait_bit_common")
	// Kernel threads (children of kthreadd, pid 2): one running, one in D, one asleep.
	write("2/stat", "2 (kthreadd) S 0 0 0 0\n")
	write("40/stat", "40 (khugepaged) R 2 0 0 0\n")
	write("40/comm", "khugepaged\n")
	write("41/stat", "41 (kworker/0:1) D 2 0 0 0\n")
	write("41/comm", "kworker/0:1\n")
	write("41/wchan", "worker_thread")
	write("42/stat", "42 (kswapd0) S 2 0 0 0\n")
	write("42/comm", "kswapd0\n")
	write("20/comm", "exchange\n")
	write("20/task/20/stat", "20 (exchange) R 1 20 20 0\n")
	write("20/task/21/stat", "21 (exchange) S 1 20 20 0\n")
	defer func(old string) { procRoot = old }(procRoot)
	procRoot = root
	got := states([]int{10, 20, 30})
	want := "  pid 10 exchange: 2 D 1 S\n" +
		"    thread 11 in D: rwsem_down_write_slowpath <- unlink_anon_vmas <- free_pgtables\n" +
		"    thread 12 in D: folio_wait_bit_common\n" +
		"  pid 20 exchange: 1 R 1 S\n" +
		"  kernel thread 40 khugepaged: R\n" +
		"  kernel thread 41 kworker/0:1: D: worker_thread\n"
	if got != want {
		t.Errorf("states:\n%s\nwant:\n%s", got, want)
	}
	// A job with no thread in D waits on itself: no kernel threads listed.
	if got, want := states([]int{20}), "  pid 20 exchange: 1 R 1 S\n"; got != want {
		t.Errorf("states of a job not in D:\n%s\nwant:\n%s", got, want)
	}
}
