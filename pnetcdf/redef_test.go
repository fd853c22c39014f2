package pnetcdf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

var headerRE = regexp.MustCompile(`(?m)<stdout>:HEADER (\S+) (.*)$`)

// TestCoupledRedef runs testprogs/redef: a writer of 2 ranks defines two
// coupled files with a redef between two enddefs (before any data moves, and
// after an epoch), with fill settings; 2 reader ranks must hold exactly the
// writer's final header (dims, variables, attributes, fill modes and values,
// record count) and read fill values where PnetCDF would, and NC_ENODATA
// where it would not fill.
func TestCoupledRedef(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "couple.ini")
	ini := "[INFO]\nncomp = 2\ncomp_name = w\ncomp_name = r\ntimeout = 60\n\n" +
		"[FILE]\nfilename = redef_before.nc\ncomp1 = w\ncomp2 = r\nmode = transfer\n\n" +
		"[FILE]\nfilename = redef_after.nc\ncomp1 = w\ncomp2 = r\nmode = transfer\n"
	if err := os.WriteFile(cfg, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := mpitest.Build(t, prefix+"redef")
	a := []string{"-cfg", cfg, "-dir", dir}
	out := mpitest.Run(t, 2*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a}, mpitest.App{NP: 2, Prog: bin, Args: a})
	headers := map[string][]string{}
	for _, m := range headerRE.FindAllStringSubmatch(out, -1) {
		headers[m[1]] = append(headers[m[1]], m[2])
	}
	for _, c := range []struct {
		name  string
		final string // the writer's final header, as %+v prints it
	}{
		{"before", finalHeader},
		{"after", finalHeader},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := headers[c.name]
			if len(hs) != 3 {
				t.Fatalf("%d HEADER lines, want 3 (writer rank 0 and 2 readers):\n%s", len(hs), out)
			}
			for i, h := range hs {
				if h != c.final {
					t.Errorf("header %d:\n%s\nwant the writer's final header:\n%s", i, h, c.final)
				}
			}
			for r := 0; r < 2; r++ {
				if !strings.Contains(out, fmt.Sprintf(">:OK %s rank %d\n", c.name, r)) {
					t.Errorf("reader rank %d did not finish case %s:\n%s", r, c.name, out)
				}
			}
		})
	}
}

// finalHeader is the header after the second enddef and the puts: Temp, F and
// R in fill mode (F with its own fill value), G not, two records.
var finalHeader = "{Format:1 Dims:[{Name:y Len:4} {Name:x Len:6} {Name:t Len:0}] " +
	"Vars:[{Name:Temp Type:NC_DOUBLE Dims:[0 1] Atts:[] NoFill:false} " +
	"{Name:F Type:NC_INT Dims:[0 1] Atts:[{Name:_FillValue Type:NC_INT Data:[251 255 255 255]}] NoFill:false} " +
	"{Name:G Type:NC_INT Dims:[0 1] Atts:[] NoFill:true} " +
	"{Name:R Type:NC_FLOAT Dims:[2 1] Atts:[] NoFill:false}] " +
	"Atts:[{Name:title Type:NC_CHAR Data:[115 101 99 111 110 100]}] NumRecs:2}"
