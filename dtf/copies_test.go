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
			if int64(len(out)) != c.n || a.mapped() != c.mapped {
				t.Fatalf("copy of %d bytes: got %d bytes, %d mapped, want %d mapped", c.n, len(out), a.mapped(), c.mapped)
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
			a.close()
			if a.mapped() != 0 {
				t.Fatalf("%d mappings left after close", a.mapped())
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
	if err != nil || &out[0] != &acc.Buf[0] || a.mapped() != 0 {
		t.Fatalf("aliasing put: err %v, aliased %v", err, &out[0] == &acc.Buf[0])
	}
}

// TestCopyArenaReuse checks that an epoch reuses the mappings of the one
// before (smallest that fits), and that release unmaps those not reused.
func TestCopyArenaReuse(t *testing.T) {
	var a copyArena
	m1 := a.alloc(2 * bigCopy)
	m2 := a.alloc(4 * bigCopy)
	a.release() // epoch 1 ends: both free
	if a.mapped() != 2 || len(a.free) != 2 {
		t.Fatalf("after epoch 1: %d mapped, %d free, want 2 and 2", a.mapped(), len(a.free))
	}
	r := a.alloc(bigCopy + 1) // fits both: takes the smaller
	if &r[0] != &m1[0] || len(r) != bigCopy+1 {
		t.Fatalf("epoch 2 did not reuse the 2 MiB mapping")
	}
	a.release() // epoch 2 ends: the 4 MiB mapping went unused and is unmapped
	if a.mapped() != 1 || len(a.free) != 1 || &a.free[0][0] != &m1[0] {
		t.Fatalf("after epoch 2: %d mapped, %d free, want 1 and 1 (the reused one)", a.mapped(), len(a.free))
	}
	_ = m2
	big := a.alloc(8 * bigCopy) // larger than any free: a new mapping
	if &big[0] == &m1[0] || a.mapped() != 2 {
		t.Fatalf("a copy larger than every free mapping must map anew (%d mapped)", a.mapped())
	}
	a.close()
	if a.mapped() != 0 {
		t.Fatalf("%d mappings left after close", a.mapped())
	}
}
