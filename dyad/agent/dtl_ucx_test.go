package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/couplet-hpc/couplet/ucx"
)

// TestChunkPlan checks the cut of files into chunks: they tile the file exactly, in order,
// none larger than the slot; the first ones ramp up from rampChunk and the last ones
// down to it; files whose offsets cross 2^32 (DYAD's UCX DTL could not stage beyond
// 4 GiB) are ordinary.
func TestChunkPlan(t *testing.T) {
	const K, M = 1 << 10, 1 << 20
	for _, c := range []struct {
		name        string
		size, chunk int64
		count       int64
		head        []int64 // the first chunks
		tail        []int64 // the last chunks
	}{
		{"empty", 0, 4 * M, 0, nil, nil},
		{"one byte", 1, 4 * M, 1, []int64{1}, nil},
		{"one ramp chunk", 256 * K, 4 * M, 1, []int64{256 * K}, nil},
		{"8 MiB", 8 * M, 4 * M, 10,
			[]int64{256 * K, 256 * K, 512 * K, 1 * M, 2 * M, 2 * M, 1 * M, 512 * K, 256 * K, 256 * K}, nil},
		{"1 GiB + 1, default window", 1<<30 + 1, 4 * M, 5 + 254 + 6,
			[]int64{256 * K, 256 * K, 512 * K, 1 * M, 2 * M, 4 * M, 4 * M}, []int64{4 * M, 2 * M, 1 * M, 512 * K, 256 * K, 256 * K, 1}},
		{"past 2^32 with a tiny window", 1<<32 + 4097, 4096, 1<<20 + 2, []int64{4096, 4096}, []int64{4096, 4096, 1}},
		{"past 2^40", 1<<40 + 5, 256 * M, 11 + 4094 + 12, nil, []int64{256 * K, 256 * K, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := chunkPlan{size: c.size, chunk: c.chunk, slots: 4}
			var got []int64
			var off int64
			for n := p.next(off); n > 0; n = p.next(off) {
				if n > c.chunk {
					t.Fatalf("chunk %d at %d: %d bytes, more than a slot (%d)", len(got), off, n, c.chunk)
				}
				got = append(got, n)
				off += n
			}
			if off != c.size || int64(len(got)) != c.count {
				t.Fatalf("%d chunks cover %d bytes, want %d chunks covering %d", len(got), off, c.count, c.size)
			}
			if h := got[:min(len(c.head), len(got))]; !slices.Equal(h, c.head) {
				t.Errorf("first chunks %v, want %v", h, c.head)
			}
			if tl := got[max(len(got)-len(c.tail), 0):]; !slices.Equal(tl, c.tail) && c.tail != nil {
				t.Errorf("last chunks %v, want %v", tl, c.tail)
			}
		})
	}
}

func TestUCXErrMode(t *testing.T) {
	for tls, want := range map[string]ucx.ErrMode{
		"tcp": ucx.ErrModePeer, "tcp,self": ucx.ErrModePeer, " tcp ": ucx.ErrModePeer,
		"": ucx.ErrModeNone, "sm": ucx.ErrModeNone, "posix,sysv": ucx.ErrModeNone,
		"tcp,sm": ucx.ErrModeNone, "self": ucx.ErrModeNone, "^sm": ucx.ErrModeNone,
	} {
		if got := ucxErrMode(tls); got != want {
			t.Errorf("ucxErrMode(%q) = %v, want %v", tls, got, want)
		}
	}
}

// TestSlotDrain feeds the consumer's drain the slots of a window of two: the file reads
// back exactly, zero runs stay holes, the hash is the content tag of the whole file, and
// each slot is acknowledged once, in order, with its offset, only once it is in the file
// and hashed (the test refills a slot only after its acknowledgement). After a write
// error nothing is acknowledged, the error is reported, and close still returns.
func TestSlotDrain(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const slot = 3*hashPiece + 77 // slots of several pieces and a short one
	want := make([]byte, 5*slot+5)
	for i := range want[:slot+hashPiece] {
		want[i] = byte(r.Uint32() | 1)
	}
	for i := 3 * slot; i < len(want); i++ { // zeros in between: holes
		want[i] = byte(r.Uint32() | 1)
	}
	type ack struct {
		off int64
		err error
	}
	for _, broken := range []bool{false, true} {
		f, err := os.Create(filepath.Join(t.TempDir(), "w"))
		if err != nil {
			t.Fatal(err)
		}
		if broken {
			f.Close() // every write fails
		}
		h := newContentHasher(testMAC())
		acks := make(chan ack, 16)
		s := startSlotDrain(f, h, 2, func(off int64) error {
			// Called on the drain's hasher: the slot must be written and hashed by now.
			end := min(off+slot, int64(len(want)))
			got := make([]byte, end-off) // a hole at the file's end reads short: zeros
			_, err := f.ReadAt(got, off)
			if errors.Is(err, io.EOF) {
				err = nil
			}
			if err == nil && !bytes.Equal(got, want[off:end]) {
				err = errors.New("slot acknowledged before it was in the file")
			}
			if err == nil && h.mac.n != uint64(end) {
				err = fmt.Errorf("slot acknowledged after hashing %d bytes, want %d", h.mac.n, end)
			}
			acks <- ack{off, err}
			return nil
		})
		win := make([]byte, 2*slot)
		slots := (len(want) + slot - 1) / slot
		if broken {
			slots = 2 // no acknowledgement will come to free a slot
		}
		next := 0 // the next acknowledgement expected
		expect := func() {
			a := <-acks
			if a.off != int64(next*slot) || a.err != nil {
				t.Fatalf("acknowledgement %d: offset %d (%v), want offset %d", next, a.off, a.err, next*slot)
			}
			next++
		}
		for k := range slots {
			if k >= 2 {
				expect() // slot k%2 is free again
			}
			off := k * slot
			w := win[k%2*slot:][:min(slot, len(want)-off)]
			copy(w, want[off:])
			s.slot(w, int64(off))
		}
		err = s.close()
		if broken {
			if !errors.Is(err, os.ErrClosed) || len(acks) != 0 {
				t.Fatalf("writes to a closed file: err = %v and %d acknowledgements, want os.ErrClosed and none", err, len(acks))
			}
			if s.close() != err {
				t.Fatal("a second close returned another error")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for next < slots {
			expect()
		}
		if !bytes.Equal(h.Sum(), tagOf(want)) {
			t.Fatal("the drain hashed other bytes than the file's")
		}
		if err := f.Truncate(int64(len(want))); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f.Name())
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read back %d bytes (%v), differ from the %d drained", len(got), err, len(want))
		}
		if st, _ := f.Stat(); st.Sys().(*syscall.Stat_t).Blocks*512 > int64(len(want)-slot) {
			t.Errorf("%d bytes on disk: the zero run was written, not left as holes", st.Sys().(*syscall.Stat_t).Blocks*512)
		}
		f.Close()
	}
}

// TestReadChunk reads a chunk of a file from its mapping, without one, past the end of
// the mapping (a file grown since), from a mapping that starts further in and before it,
// and from a mapping whose file was cut short meanwhile, which fails with an error
// instead of crashing.
func TestReadChunk(t *testing.T) {
	want := make([]byte, 3*holeBlock+5)
	for i := range want {
		want[i] = byte(i*7 + i/251 + 1) // not periodic in a page
	}
	for _, c := range []struct {
		name    string
		mapFrom int64 // where the mapping starts
		mapSize int64 // where it ends; 0: no mapping
		cutTo   int64 // the file's size at the read, after the mapping
		off, n  int64
		changed bool // the read fails: the file changed under it
	}{
		{name: "mapped", mapSize: int64(len(want)), cutTo: int64(len(want)), off: holeBlock + 3, n: holeBlock},
		{name: "unmapped", cutTo: int64(len(want)), off: 5, n: 2 * holeBlock},
		{name: "past the mapping", mapSize: holeBlock, cutTo: int64(len(want)), off: holeBlock - 2, n: 100},
		{name: "cut short", mapSize: int64(len(want)), cutTo: 0, off: 2 * holeBlock, n: holeBlock, changed: true},
		{name: "mapped further in", mapFrom: holeBlock, mapSize: int64(len(want)), cutTo: int64(len(want)), off: holeBlock + 3, n: holeBlock},
		{name: "across the mapping's start", mapFrom: holeBlock, mapSize: int64(len(want)), cutTo: int64(len(want)), off: holeBlock - 2, n: 100},
		{name: "mapped further in, cut short", mapFrom: holeBlock, mapSize: int64(len(want)), cutTo: 0, off: holeBlock + 3, n: 100, changed: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "f"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.Write(want)
			m := mapFile(f, c.mapFrom, c.mapSize)
			if c.mapSize > c.mapFrom && m.b == nil {
				t.Skip("the file system does not map files")
			}
			defer m.unmap()
			f.Truncate(c.cutTo)
			p := make([]byte, c.n)
			err = readChunk(f, m, p, c.off)
			switch {
			case c.changed && (err == nil || !strings.Contains(err.Error(), "changed under the staging")):
				t.Fatalf("err = %v, want the file changed under the staging", err)
			case !c.changed && err != nil:
				t.Fatal(err)
			case !c.changed && !bytes.Equal(p, want[c.off:c.off+c.n]):
				t.Fatalf("read %d bytes at %d: differ from the file's", c.n, c.off)
			}
		})
	}
}
