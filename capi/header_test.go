package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// realHeader is the system PnetCDF header that capi/pnetcdf.h reproduces.
const realHeader = "/usr/include/pnetcdf.h"

var (
	cComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	defineRE = regexp.MustCompile(`(?m)^\s*#\s*define\s+(\w+)(\()?\s*(.*)$`)
)

// realSource is the real header without comments and with continuations joined.
func realSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(realHeader)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(cComment.ReplaceAllString(string(b), " "), "\\\n", " ")
}

// compileRun builds a C program with mpicc against the pnetcdf.h found first on
// the include path (incl) and returns what it prints.
func compileRun(t *testing.T, dir, name, src string, incl ...string) string {
	t.Helper()
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	args := append(append([]string{}, incl...), "-Wall", "-Werror", "-Wno-unused-variable", "-o", bin, c)
	if out, err := exec.Command("mpicc", args...).CombinedOutput(); err != nil {
		t.Fatalf("mpicc %v: %v\n%s", args, err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return string(out)
}

// TestHeaderMacros compiles one program printing the value of every object-like
// macro of the real <pnetcdf.h>, once against the real header and once against
// capi/pnetcdf.h, and compares the outputs line by line: the same names with the
// same values, as the preprocessor and compiler see them.
func TestHeaderMacros(t *testing.T) {
	var names []string
	for _, m := range defineRE.FindAllStringSubmatch(realSource(t), -1) {
		if m[2] == "" && strings.TrimSpace(m[3]) != "" && m[1] != "_PNETCDF_H" {
			names = append(names, m[1])
		}
	}
	if len(names) < 300 {
		t.Fatalf("found only %d macros in %s", len(names), realHeader)
	}
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <pnetcdf.h>
static void ps(const char *n, const char *v) { printf("%s = \"%s\"\n", n, v); }
static void pd(const char *n, long double v) { printf("%s = %.21Lg\n", n, v); }
static void pi(const char *n, unsigned long long v) { printf("%s = %llu\n", n, v); }
#define P(x) _Generic((x), char *: ps, const char *: ps, float: pd, double: pd, long double: pd, default: pi)(#x, x)
int main(void) {
`)
	for _, n := range names {
		fmt.Fprintf(&b, "\tP(%s);\n", n)
	}
	b.WriteString("#ifndef NC_ISSYSERR\n#error NC_ISSYSERR\n#endif\n\treturn NC_ISSYSERR(1) ? 0 : 1;\n}\n")
	dir := t.TempDir()
	here, _ := filepath.Abs(".")
	real := compileRun(t, dir, "real", b.String())
	mine := compileRun(t, dir, "mine", b.String(), "-I"+here)
	rl, ml := strings.Split(real, "\n"), strings.Split(mine, "\n")
	if len(rl) != len(ml) {
		t.Fatalf("%d lines against the real header, %d against capi's", len(rl), len(ml))
	}
	for i := range rl {
		if rl[i] != ml[i] {
			t.Errorf("real %s, capi %s", rl[i], ml[i])
		}
	}
}

// TestHeaderPrototypes compiles capi/pnetcdf.h followed by every declaration of
// the real header: a function declared with a different type, or a type declared
// differently, is a compile error.
func TestHeaderPrototypes(t *testing.T) {
	var lines []string
	for _, l := range strings.Split(realSource(t), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines = append(lines, l)
		}
	}
	var b strings.Builder
	b.WriteString("#include <pnetcdf.h>\n")
	n := 0
	for _, d := range strings.Split(strings.Join(lines, " "), ";") {
		d = strings.Join(strings.Fields(d), " ")
		d = strings.TrimPrefix(strings.TrimPrefix(d, "}"), " ")
		if strings.Contains(d, "ncmpi_") && strings.Contains(d, "(") {
			b.WriteString(d + ";\n")
			n++
		}
	}
	if n < 900 {
		t.Fatalf("found only %d prototypes in %s", n, realHeader)
	}
	b.WriteString("int main(void) { return 0; }\n")
	here, _ := filepath.Abs(".")
	compileRun(t, t.TempDir(), "protos", b.String(), "-I"+here)
}
