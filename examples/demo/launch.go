package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpilaunch"
)

// pkgs are the example programs the demo builds, by name.
var pkgs = map[string]string{
	"heat":    "github.com/couplet-hpc/couplet/examples/heat",
	"analyze": "github.com/couplet-hpc/couplet/examples/analyze",
}

// build compiles heat and analyze into dir and returns their paths.
func build(dir string) (heat, analyze string, err error) {
	for name, pkg := range pkgs {
		out := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", "", fmt.Errorf("build %s: %w", name, err)
		}
	}
	return filepath.Join(dir, "heat"), filepath.Join(dir, "analyze"), nil
}

// job is one coupled run: the programs and their shared settings.
type job struct {
	heat, analyze    string
	writers, readers int
	config, out      string
	nx, ny           int
	steps, every     int
	explicit         bool
}

// apps returns the two application contexts of the MPMD launch.
func (j job) apps() []mpilaunch.App {
	common := []string{"-config", j.config, "-out", j.out,
		"-steps", strconv.Itoa(j.steps), "-every", strconv.Itoa(j.every)}
	if j.explicit {
		common = append(common, "-explicit")
	}
	heatArgs := append([]string{"-nx", strconv.Itoa(j.nx), "-ny", strconv.Itoa(j.ny)}, common...)
	return []mpilaunch.App{
		{NP: j.writers, Prog: j.heat, Args: heatArgs},
		{NP: j.readers, Prog: j.analyze, Args: common},
	}
}

// mpirunArgs is the command line `mpirun -np W heat ... : -np R analyze ...`.
func mpirunArgs(apps []mpilaunch.App) []string {
	args := []string{"--oversubscribe"}
	for i, a := range apps {
		if i > 0 {
			args = append(args, ":")
		}
		args = append(args, "-np", strconv.Itoa(a.NP), a.Prog)
		args = append(args, a.Args...)
	}
	return args
}

// runJob launches the job with the platform's mpirun settings, streaming
// its output, and ends it (mpirun and its ranks) if it outlasts timeout.
func runJob(j job, timeout time.Duration) error {
	cmd := exec.Command("mpirun", mpirunArgs(j.apps())...)
	cmd.Env = append(os.Environ(), mpilaunch.PlatformEnv...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start mpirun: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("mpirun: %w", err)
		}
		return nil
	case <-time.After(timeout):
	}
	// mpirun ends its ranks on SIGTERM; SIGKILL whatever is left.
	pid := cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
	return fmt.Errorf("mpirun: timed out after %v and was ended", timeout)
}
