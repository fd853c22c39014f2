package cma

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/couplet-hpc/couplet/transport"
)

// TestReadSelf reads blocks of this very process by pid, with layouts that
// differ on the two sides, and compares with Pack/Unpack: exact bytes, and
// nothing outside the destination sub-block touched.
func TestReadSelf(t *testing.T) {
	cases := []struct {
		name     string
		esize    int
		srcShape []int64
		srcStart []int64
		dstShape []int64
		dstStart []int64
		count    []int64
	}{
		{"contiguous", 8, []int64{64}, []int64{0}, []int64{64}, []int64{0}, []int64{64}},
		{"0-d", 4, nil, nil, nil, nil, nil},
		{"rows to slab", 8, []int64{4, 16, 16}, []int64{1, 0, 0}, []int64{8, 32, 32}, []int64{2, 8, 16}, []int64{2, 16, 16}},
		{"strided both", 2, []int64{10, 9, 7}, []int64{1, 2, 3}, []int64{5, 12, 11}, []int64{0, 1, 2}, []int64{3, 5, 4}},
		// more than 1024 runs on the local side, one on the remote: several calls
		{"batches", 4, []int64{3000, 3}, []int64{0, 0}, []int64{3000, 5}, []int64{0, 1}, []int64{3000, 3}},
		// more than 1024 runs on both sides, offset so pieces split runs
		{"batches both", 1, []int64{2100, 7}, []int64{0, 1}, []int64{2100, 9}, []int64{0, 4}, []int64{2100, 5}},
		{"empty", 8, []int64{4, 4}, []int64{1, 1}, []int64{4, 4}, []int64{0, 0}, []int64{0, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := transport.Block{ElemSize: c.esize, Shape: c.srcShape, Start: c.srcStart, Count: c.count}
			src.Buf = make([]byte, total(c.srcShape, c.esize))
			for i := range src.Buf {
				src.Buf[i] = byte(i*7 + 3)
			}
			dst := transport.Block{ElemSize: c.esize, Shape: c.dstShape, Start: c.dstStart, Count: c.count}
			dst.Buf = bytes.Repeat([]byte{0xee}, int(total(c.dstShape, c.esize)))
			want := append([]byte{}, dst.Buf...)
			packed := make([]byte, src.Bytes())
			if err := transport.Pack(src, packed); err != nil {
				t.Fatal(err)
			}
			if err := transport.Unpack(transport.Block{Buf: want, ElemSize: c.esize, Shape: c.dstShape, Start: c.dstStart, Count: c.count}, packed); err != nil {
				t.Fatal(err)
			}
			d, err := Decode(Describe(src).Encode())
			if err != nil {
				t.Fatal(err)
			}
			if err := Read(d, dst); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dst.Buf, want) {
				t.Errorf("destination differs from Pack+Unpack")
			}
			// The same in three uneven ranges read at once.
			dst.Buf = bytes.Repeat([]byte{0xee}, len(dst.Buf))
			n := dst.Bytes()
			cuts := []int64{0, n / 3, n/3 + n/5 + 1, n}
			if n < 2 {
				cuts = []int64{0, n}
			}
			var wg sync.WaitGroup
			errs := make([]error, len(cuts)-1)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = ReadRange(d, dst, cuts[i], cuts[i+1]-cuts[i])
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dst.Buf, want) {
				t.Errorf("destination read in ranges %v differs from Pack+Unpack", cuts)
			}
			if err := ReadRange(d, dst, 1, n); err == nil {
				t.Errorf("range [1,+%d) of a %d-byte block: no error", n, n)
			}
		})
	}
}

func total(shape []int64, esize int) int64 {
	n := int64(esize)
	for _, s := range shape {
		n *= s
	}
	return n
}

// TestReadErrors covers blocks of different sizes, a process that is gone
// (ESRCH, reported as a refusal) and descriptors that do not parse.
func TestReadErrors(t *testing.T) {
	src := transport.Block{Buf: make([]byte, 64), ElemSize: 8, Shape: []int64{8}, Start: []int64{0}, Count: []int64{8}}
	small := transport.Block{Buf: make([]byte, 64), ElemSize: 8, Shape: []int64{8}, Start: []int64{0}, Count: []int64{7}}
	if err := Read(Describe(src), small); err == nil || errors.Is(err, ErrRefused) {
		t.Errorf("size mismatch: err = %v, want a size error", err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	gone := Describe(src)
	gone.Pid = cmd.Process.Pid // reaped: no such process (unless reused at once)
	if err := Read(gone, src); !errors.Is(err, ErrRefused) {
		t.Errorf("read from a finished process: err = %v, want ErrRefused", err)
	}
	if err := Probe(gone.Pid, gone.Addr, []byte{1}); !errors.Is(err, ErrRefused) {
		t.Errorf("probe of a finished process: err = %v, want ErrRefused", err)
	}
	probe := []byte{1, 2, 3, 4}
	if err := Probe(os.Getpid(), Addr(probe), []byte{1, 2, 3, 4}); err != nil {
		t.Errorf("probe of self: %v", err)
	}
	if err := Probe(os.Getpid(), Addr(probe), []byte{1, 2, 3, 5}); err == nil || errors.Is(err, ErrRefused) {
		t.Errorf("probe of self with other bytes: err = %v, want a mismatch", err)
	}
	bad := [][]int64{
		nil,
		{1, 2, 3, 4, 5, 0},                   // magic
		{descMagic, 1, 0, 8, 8, 1, 1, 0},     // short
		{descMagic, 1, 0, 8, 8, 1, 2, 0, 2},  // 16 bytes of shape in an 8-byte buffer
		{descMagic, 0, 0, 8, 8, 1, 1, 0, 1},  // pid 0
		{descMagic, 1, 0, 8, 8, 1, 1, 1, 1},  // start+count beyond shape
		{descMagic, 1, 0, 8, 8, -1},          // negative rank
		{descMagic, 1, 0, -8, 8, 1, 1, 0, 1}, // negative length
		{descMagic, 1, 0, 8, 0, 1, 1, 0, 1},  // element size 0
	}
	for i, w := range bad {
		if _, err := Decode(w); err == nil {
			t.Errorf("bad descriptor %d %v: no error", i, w)
		}
	}
}

// FuzzDecode: Decode never panics, and what it accepts encodes back to the
// same words.
func FuzzDecode(f *testing.F) {
	f.Add(int64(descMagic), int64(1), int64(4096), int64(64), int64(8), int64(1), int64(8), int64(0), int64(8))
	f.Fuzz(func(t *testing.T, a, b, c, d, e, nd, x, y, z int64) {
		w := []int64{a, b, c, d, e, nd, x, y, z}
		got, err := Decode(w)
		if err != nil {
			return
		}
		if !slicesEqual(got.Encode(), w) {
			t.Errorf("Decode(%v) encodes back to %v", w, got.Encode())
		}
	})
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
