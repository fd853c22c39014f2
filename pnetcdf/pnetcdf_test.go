package pnetcdf_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

const prefix = "github.com/couplet-hpc/couplet/pnetcdf/testprogs/"

// validate runs ncvalidator on every .nc file in dir and returns their paths.
func validate(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.nc"))
	if len(files) == 0 {
		t.Fatalf("no files written in %s", dir)
	}
	for _, f := range files {
		if out, err := exec.Command("ncvalidator", f).CombinedOutput(); err != nil {
			t.Errorf("ncvalidator %s: %v\n%s", f, err, out)
		}
	}
	return files
}

// dump returns ncmpidump's output for the given variable of path.
func dump(t *testing.T, path, v string) string {
	t.Helper()
	out, err := exec.Command("ncmpidump", "-v", v, path).CombinedOutput()
	if err != nil {
		t.Fatalf("ncmpidump %s: %v\n%s", path, err, out)
	}
	return string(out)
}

// TestSuite round-trips every element type through every access family,
// record variables, nonblocking requests and attributes on 1, 2 and 4 ranks;
// each rank reads back another rank's part. The files must pass ncvalidator
// and ncmpidump must show what was written.
func TestSuite(t *testing.T) {
	bin := mpitest.Build(t, prefix+"suite")
	for _, np := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
			dir := t.TempDir()
			mpitest.Run(t, 90*time.Second, mpitest.App{NP: np, Prog: bin, Args: []string{"-dir", dir}})
			validate(t, dir)
			// Rows are 0..2*np-1; element (i, j) holds (i*6+j)%100, 'a'+(i*6+j)%26 for text.
			var rows, text []string
			for i := 0; i < 2*np; i++ {
				var r []string
				var s []byte
				for j := 0; j < 6; j++ {
					r = append(r, strconv.Itoa((i*6+j)%100))
					s = append(s, byte('a'+(i*6+j)%26))
				}
				rows = append(rows, strings.Join(r, ", "))
				text = append(text, `"`+string(s)+`"`)
			}
			for _, v := range []string{"NC_INT_varm_i", "NC_UINT64_varn_c", "NC_BYTE_vars_i", "NC_DOUBLE_var1_c"} {
				out := dump(t, filepath.Join(dir, "types.nc"), v)
				for _, r := range rows {
					if !strings.Contains(out, r) {
						t.Errorf("ncmpidump of %s lacks row %q:\n%s", v, r, out)
						break
					}
				}
			}
			out := dump(t, filepath.Join(dir, "types.nc"), "NC_CHAR_varn_i")
			for _, s := range text {
				if !strings.Contains(out, s) {
					t.Errorf("ncmpidump of NC_CHAR_varn_i lacks %s:\n%s", s, out)
				}
			}
			if out := dump(t, filepath.Join(dir, "records.nc"), "step"); !strings.Contains(out, "time = UNLIMITED ; // (4 currently)") ||
				!strings.Contains(out, "step = 0, 10, 20, 30 ;") {
				t.Errorf("records.nc:\n%s", out)
			}
			if out := dump(t, filepath.Join(dir, "atts.nc"), "w"); !strings.Contains(out, ":g_NC_UINT64 = 1ULL, 2ULL, 1000ULL ;") ||
				!strings.Contains(out, `w:unit = "K" ;`) || !strings.Contains(out, `v:unit = "C" ;`) {
				t.Errorf("atts.nc:\n%s", out)
			}
		})
	}
}

// TestErrorCodes makes every bad call of PnetCDF's check order through the Go
// API and directly through libpnetcdf on twin files, on 1 and 4 ranks (with a
// case where only rank 0 is wrong in a collective call). The codes must be
// equal and as expected, and neither file may change.
func TestErrorCodes(t *testing.T) {
	bin := mpitest.Build(t, prefix+"errcheck")
	for _, np := range []int{1, 4} {
		t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
			dir := t.TempDir()
			out := mpitest.Run(t, 60*time.Second, mpitest.App{NP: np, Prog: bin, Args: []string{"-dir", dir}})
			if n := strings.Count(out, ">:ok "); n < 30*np {
				t.Errorf("only %d cases passed on %d ranks:\n%s", n, np, out)
			}
			validate(t, dir)
			diff, err := exec.Command("ncmpidiff", filepath.Join(dir, "go.nc"), filepath.Join(dir, "c.nc")).CombinedOutput()
			if err != nil {
				t.Errorf("ncmpidiff go.nc c.nc: %v\n%s", err, diff)
			}
		})
	}
}

var benchRE = regexp.MustCompile(`BENCH bytes=(\d+) seconds=([0-9.]+)`)

// BenchmarkFileExchange writes a 256^3 float64 variable (128 MiB) with 4 ranks
// in slabs along z and reads it back in slabs along x, through real files.
// SetBytes counts the bytes written plus read; io-MB/s excludes mpirun's
// start-up.
func BenchmarkFileExchange(b *testing.B) {
	const n = 256
	bin := mpitest.Build(b, prefix+"bench")
	b.SetBytes(2 * 8 * n * n * n)
	b.ResetTimer()
	out := mpitest.Run(b, 10*time.Minute, mpitest.App{NP: 4, Prog: bin,
		Args: []string{"-dir", b.TempDir(), "-n", strconv.Itoa(n), "-iters", strconv.Itoa(b.N)}})
	m := benchRE.FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("no BENCH line:\n%s", out)
	}
	bytes, _ := strconv.ParseFloat(m[1], 64)
	secs, _ := strconv.ParseFloat(m[2], 64)
	b.ReportMetric(bytes/secs/1e6, "io-MB/s")
}
