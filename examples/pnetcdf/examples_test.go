package examples

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// TestExamples runs each example under mpirun; each verifies its own data
// (read back in another decomposition), and its file must pass ncvalidator.
func TestExamples(t *testing.T) {
	for _, ex := range []struct {
		name string
		np   int
		want string // in ncmpidump -h output
	}{
		{"block3d", 4, "density:units"},
		{"timeseries", 3, "time = UNLIMITED ; // (10 currently)"},
		{"manyvars", 4, "int var063(y, x)"},
	} {
		t.Run(ex.name, func(t *testing.T) {
			bin := mpitest.Build(t, "github.com/couplet-hpc/couplet/examples/pnetcdf/"+ex.name)
			path := filepath.Join(t.TempDir(), ex.name+".nc")
			out := mpitest.Run(t, 60*time.Second, mpitest.App{NP: ex.np, Prog: bin, Args: []string{"-o", path}})
			if n := strings.Count(out, "verified"); n != ex.np {
				t.Errorf("%d of %d ranks verified:\n%s", n, ex.np, out)
			}
			if o, err := exec.Command("ncvalidator", path).CombinedOutput(); err != nil {
				t.Errorf("ncvalidator: %v\n%s", err, o)
			}
			h, err := exec.Command("ncmpidump", "-h", path).CombinedOutput()
			if err != nil || !strings.Contains(string(h), ex.want) {
				t.Errorf("ncmpidump -h (%v) lacks %q:\n%s", err, ex.want, h)
			}
		})
	}
}
