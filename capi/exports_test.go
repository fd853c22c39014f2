package main

import (
	"os/exec"
	"strings"
	"testing"
)

// required lists the functions issue 9 names, by family.
func required() []string {
	names := []string{
		"ncmpi_create", "ncmpi_open", "ncmpi_close", "ncmpi_enddef", "ncmpi_redef", "ncmpi_sync",
		"ncmpi_def_dim", "ncmpi_def_var", "ncmpi_strerror", "ncmpi_inq_malloc_size", "ncmpi_inq_malloc_max_size",
		"ncmpi_inq", "ncmpi_inq_ndims", "ncmpi_inq_nvars", "ncmpi_inq_natts", "ncmpi_inq_unlimdim", "ncmpi_inq_format",
		"ncmpi_inq_dim", "ncmpi_inq_dimid", "ncmpi_inq_dimname", "ncmpi_inq_dimlen",
		"ncmpi_inq_var", "ncmpi_inq_varid", "ncmpi_inq_varname", "ncmpi_inq_vartype", "ncmpi_inq_varndims",
		"ncmpi_inq_vardimid", "ncmpi_inq_varnatts", "ncmpi_inq_att", "ncmpi_inq_attid", "ncmpi_inq_attname",
		"ncmpi_inq_atttype", "ncmpi_inq_attlen", "ncmpi_put_att", "ncmpi_get_att",
		"ncmpi_wait", "ncmpi_wait_all", "ncmpi_buffer_attach", "ncmpi_buffer_detach",
		"ncmpi_inq_put_size", "ncmpi_inq_get_size", "ncmpi_begin_indep_data", "ncmpi_end_indep_data",
		"dtf_init", "dtf_finalize", "dtf_transfer", "dtf_transfer_all_files", "dtf_time_start", "dtf_time_end",
	}
	types := []string{"text", "schar", "uchar", "short", "ushort", "int", "uint", "long", "float", "double", "longlong", "ulonglong"}
	for _, t := range append(types, "ubyte") {
		names = append(names, "ncmpi_put_att_"+t, "ncmpi_get_att_"+t)
	}
	for _, fam := range []string{"var", "var1", "vara", "vars", "varm"} {
		for _, op := range []string{"put", "get"} {
			for _, all := range []string{"", "_all"} {
				names = append(names, "ncmpi_"+op+"_"+fam+all)
				for _, t := range types {
					names = append(names, "ncmpi_"+op+"_"+fam+"_"+t+all)
				}
			}
		}
		for _, op := range []string{"iput", "iget", "bput"} {
			names = append(names, "ncmpi_"+op+"_"+fam)
			for _, t := range types {
				names = append(names, "ncmpi_"+op+"_"+fam+"_"+t)
			}
		}
	}
	return names
}

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

// TestExports checks with nm -D that libcouplet exports every function the
// issue names, and that every ncmpi_ function it exports exists in the real
// libpnetcdf it forwards to (except the ubyte attribute forms, which 1.12
// only declares and libcouplet forwards to the uchar forms).
func TestExports(t *testing.T) {
	mine := dynamicText(t, libPath(t))
	for _, n := range required() {
		if !mine[n] {
			t.Errorf("libcouplet.so does not export %s", n)
		}
	}
	real := dynamicText(t, "/usr/lib/x86_64-linux-gnu/libpnetcdf.so")
	for n := range mine {
		if strings.HasPrefix(n, "ncmpi_") && !strings.Contains(n, "_att_ubyte") && !real[n] {
			t.Errorf("libcouplet.so exports %s, which libpnetcdf lacks", n)
		}
	}
	if !mine["MPI_Finalize"] {
		t.Errorf("libcouplet.so does not interpose MPI_Finalize")
	}
}
