package dtf

import (
	"testing"

	"github.com/couplet-hpc/couplet/nc"
)

// TestCopyArena checks that copies from bigCopy bytes are mapped outside
// the Go heap until release, smaller ones are not, and packWrite takes its
// copies from the arena.
func TestCopyArena(t *testing.T) {
	cases := []struct {
		name   string
		n      int64
		mapped int
	}{
		{"small", 1024, 0},
		{"just under", bigCopy - 8, 0},
		{"big", bigCopy, 1},
		{"bigger", 3*bigCopy + 8, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a copyArena
			src := make([]float64, c.n/8)
			for i := range src {
				src[i] = float64(i)
			}
			acc := nc.Access{Var: 0, Start: []int64{0}, Count: []int64{c.n / 8}, Buf: nc.Bytes(src), BufType: nc.DOUBLE}
			out, err := packWrite(&acc, nc.DOUBLE, true, a.alloc)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(out)) != c.n || len(a.mapped) != c.mapped {
				t.Fatalf("copy of %d bytes: got %d bytes, %d mapped, want %d mapped", c.n, len(out), len(a.mapped), c.mapped)
			}
			if &out[0] == &acc.Buf[0] {
				t.Fatal("packWrite aliased the user buffer although asked to copy")
			}
			got := nc.Elems[float64](out)
			for i, v := range got {
				if v != float64(i) {
					t.Fatalf("element %d is %v, want %d", i, v, i)
				}
			}
			a.release()
			if len(a.mapped) != 0 {
				t.Fatalf("%d mappings left after release", len(a.mapped))
			}
		})
	}
}

// TestPackWriteAliases checks that a put needing neither copy nor
// conversion takes nothing from the arena.
func TestPackWriteAliases(t *testing.T) {
	var a copyArena
	src := make([]float64, bigCopy/8)
	acc := nc.Access{Var: 0, Start: []int64{0}, Count: []int64{int64(len(src))}, Buf: nc.Bytes(src), BufType: nc.DOUBLE}
	out, err := packWrite(&acc, nc.DOUBLE, false, func(int64) []byte { t.Fatal("alloc called for an aliasing put"); return nil })
	if err != nil || &out[0] != &acc.Buf[0] || len(a.mapped) != 0 {
		t.Fatalf("aliasing put: err %v, aliased %v", err, &out[0] == &acc.Buf[0])
	}
}
