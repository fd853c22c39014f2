package mpitest

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpilaunch"
)

// App is one application context of an mpirun launch.
type App = mpilaunch.App

// Result is the outcome of one launch.
type Result = mpilaunch.Result

// PlatformEnv is what mpirun needs on these machines (see mpilaunch.PlatformEnv).
var PlatformEnv = mpilaunch.PlatformEnv

// DefaultTimeout applies when Run is given a timeout of zero.
const DefaultTimeout = mpilaunch.DefaultTimeout

// Run launches apps under one mpirun (MPMD when there are several), waits at
// most timeout, and returns the tagged output. The test fails, listing each
// rank's failure lines, if the job times out or exits non-zero.
func Run(t testing.TB, timeout time.Duration, apps ...App) string {
	t.Helper()
	r := Launch(timeout, apps...)
	if r.Err != nil {
		t.Fatal(describe(r))
	}
	return r.Output
}

// RunExpectFail launches apps like Run but expects the job to fail: the
// test fails if it exits 0 or times out. It returns the tagged output.
func RunExpectFail(t testing.TB, timeout time.Duration, apps ...App) string {
	t.Helper()
	r := Launch(timeout, apps...)
	switch {
	case r.TimedOut:
		t.Fatal(describe(r))
	case r.Err == nil:
		t.Fatalf("mpitest: job succeeded but was expected to fail; output:\n%s", r.Output)
	}
	return r.Output
}

// Args returns the mpirun command line for apps.
func Args(apps ...App) []string { return mpilaunch.Args(apps...) }

// Launch runs apps under mpirun and reports the outcome without touching a test.
func Launch(timeout time.Duration, apps ...App) Result { return mpilaunch.Launch(timeout, apps...) }

// LaunchApart runs each app as its own mpirun (see mpilaunch.LaunchApart).
func LaunchApart(timeout, gap time.Duration, apps ...App) []Result {
	return mpilaunch.LaunchApart(timeout, gap, apps...)
}

// Failure is one rank's failure line.
type Failure = mpilaunch.Failure

// Failures returns the failure lines ranks printed through Fail and Fatal.
func Failures(out string) []Failure { return mpilaunch.Failures(out) }

// RankLines returns rank's output lines, without their tags.
func RankLines(out string, rank int) []string { return mpilaunch.RankLines(out, rank) }

// UCXPML makes Open MPI use its UCX PML on one host (see mpilaunch.UCXPML).
var UCXPML = mpilaunch.UCXPML

// HasUCXPML reports whether Open MPI has the UCX PML.
func HasUCXPML() bool { return mpilaunch.HasUCXPML() }

// describe explains a failed launch, rank by rank.
func describe(r Result) string { return mpilaunch.Describe(r) }

// ucxWarn matches UCX's warning lines, such as "UCX  WARN  unexpected
// tag-receive descriptor ... was not matched": a message some rank sent
// and no rank ever received.
var ucxWarn = regexp.MustCompile(`UCX\s+WARN`)

// UCXWarnings returns the lines of out that carry a UCX warning.
func UCXWarnings(out string) []string {
	var warns []string
	for _, l := range strings.Split(out, "\n") {
		if ucxWarn.MatchString(l) {
			warns = append(warns, l)
		}
	}
	return warns
}

// NoUCXWarnings fails the test if any launch printed a UCX warning.
func NoUCXWarnings(t testing.TB, rs ...Result) {
	t.Helper()
	for i, r := range rs {
		if w := UCXWarnings(r.Output); len(w) > 0 {
			t.Errorf("launch %d printed %d UCX warnings:\n%s", i, len(w), strings.Join(w, "\n"))
		}
	}
}
