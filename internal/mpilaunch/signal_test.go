package mpilaunch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary, run again by TestSignalEndsJob, launch
// the job whose ranks sleep for the seconds it names.
const helperEnv = "COUPLET_MPILAUNCH_SLEEPER"

// TestSignalEndsJob sends SIGTERM to a process that waits in Launch on a
// job of two sleeping ranks: the process ends by that signal, and it ends
// the job first, where before mpirun and the ranks, in a process group of
// their own, slept on after it died.
func TestSignalEndsJob(t *testing.T) {
	if secs := os.Getenv(helperEnv); secs != "" {
		r := Launch(time.Minute, App{NP: 2, Prog: "sleep", Args: []string{secs}})
		fmt.Println("launch returned:", r.Err)
		os.Exit(3) // not reached when the signal ends the process
	}
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("no mpirun")
	}
	// A duration no other process sleeps for names the ranks.
	secs := fmt.Sprintf("900.%06d", os.Getpid())
	t.Cleanup(func() {
		for _, p := range sleepers(secs) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalEndsJob$")
	cmd.Env = append(os.Environ(), helperEnv+"="+secs)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for len(sleepers(secs)) < 3 { // mpirun and the two ranks
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the ranks did not start within a minute; output:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the process did not end within 30 s of SIGTERM; output:\n%s", out.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("the process ended with %v, want killed by SIGTERM; output:\n%s", err, out.String())
	}
	if left := sleepers(secs); len(left) > 0 {
		t.Errorf("processes %v of the job (mpirun, ranks) still run after the process ended", left)
	}
}

// sleepers returns the processes whose command line ends in sleep for
// secs: the ranks and the mpirun that started them.
func sleepers(secs string) []int {
	want := []byte("sleep\x00" + secs + "\x00")
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasSuffix(b, want) {
			continue
		}
		var pid int
		fmt.Sscanf(filepath.Base(filepath.Dir(p)), "%d", &pid)
		out = append(out, pid)
	}
	return out
}
