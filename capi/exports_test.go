package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// realLib is the system libpnetcdf whose ABI libcouplet reproduces.
const realLib = "/usr/lib/x86_64-linux-gnu/libpnetcdf.so"

// dynamicText returns the names nm -D lists as defined functions of a library.
func dynamicText(t *testing.T, path string) map[string]bool {
	t.Helper()
	out, err := exec.Command("nm", "-D", "--defined-only", path).Output()
	if err != nil {
		t.Fatalf("nm -D %s: %v", path, err)
	}
	syms := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && (f[1] == "T" || f[1] == "W") {
			syms[strings.SplitN(f[2], "@", 2)[0]] = true
		}
	}
	return syms
}

// TestExports compares nm -D of libcouplet with the system libpnetcdf: every
// ncmpi_* function libpnetcdf exports must be exported by libcouplet, and every
// ncmpi_* function libcouplet exports must exist in libpnetcdf (except the ubyte
// attribute forms, which libpnetcdf 1.12 declares without defining and libcouplet
// forwards to the uchar forms). DTF's C and Fortran entry points, the component
// communicator extension and the MPI_Finalize hook are checked too.
func TestExports(t *testing.T) {
	mine := dynamicText(t, libPath(t))
	real := dynamicText(t, realLib)
	var missing []string
	n := 0
	for s := range real {
		if strings.HasPrefix(s, "ncmpi_") {
			n++
			if !mine[s] {
				missing = append(missing, s)
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("libcouplet.so lacks %d of the %d ncmpi_* functions of %s: %s", len(missing), n, realLib, strings.Join(missing, " "))
	}
	if n < 900 {
		t.Errorf("%s exports only %d ncmpi_* functions: is it PnetCDF 1.12?", realLib, n)
	}
	for s := range mine {
		if strings.HasPrefix(s, "ncmpi_") && !strings.Contains(s, "_att_ubyte") && !real[s] {
			t.Errorf("libcouplet.so exports %s, which libpnetcdf lacks", s)
		}
	}
	for _, s := range []string{
		"dtf_init", "dtf_finalize", "dtf_transfer", "dtf_transfer_all_files", "dtf_transfer_multiple", "dtf_complete_multiple", "dtf_time_start", "dtf_time_end",
		"dtf_init_", "dtf_finalize_", "dtf_transfer_", "dtf_transfer_all_files_", "dtf_transfer_multiple_", "dtf_complete_multiple_", "dtf_time_start_", "dtf_time_end_",
		"couplet_comm", "couplet_comm_", "MPI_Finalize",
	} {
		if !mine[s] {
			t.Errorf("libcouplet.so does not export %s", s)
		}
	}
}
