package cma

import (
	"testing"

	"github.com/couplet-hpc/couplet/transport"
)

// benchShape is the owner's array of BenchmarkRead: 64 MiB of float64.
var benchShape = []int64{128, 256, 256}

// BenchmarkRead reads another process's 64 MiB array into the matching
// half of each row of a twice-as-wide array (2 KiB runs, as a reader of
// case 1 of couplet bench does), by mapping the owner's memory from Alloc
// and by process_vm_readv from the same memory.
func BenchmarkRead(b *testing.B) {
	needPidfd(b)
	d := startOwner(b, "bench")
	dst := transport.Block{ElemSize: 8, Shape: []int64{128, 256, 512}, Start: []int64{0, 0, 256}, Count: benchShape}
	dst.Buf = make([]byte, total(dst.Shape, 8))
	for _, c := range []struct {
		name   string
		region uint64
	}{{"mapped", d.Region}, {"process_vm_readv", 0}} {
		b.Run(c.name, func(b *testing.B) {
			d := d
			d.Region = c.region
			if err := Read(d, dst); err != nil { // maps once, faults dst in
				b.Fatal(err)
			}
			b.SetBytes(d.Bytes())
			for b.Loop() {
				if err := Read(d, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	Detach()
}
