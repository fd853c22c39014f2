package cma

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/couplet-hpc/couplet/transport"
	"golang.org/x/sys/unix"
)

// TestReadSelf reads blocks of this very process by pid, with layouts that
// differ on the two sides, and compares with Pack/Unpack: exact bytes, and
// nothing outside the destination sub-block touched.
func TestReadSelf(t *testing.T) {
	cases := []readCase{
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
		for _, shared := range []bool{false, true} {
			name := c.name
			if shared {
				name += " shared"
			}
			t.Run(name, func(t *testing.T) {
				readSelf(t, c, shared)
			})
		}
	}
}

// readCase is a block layout on both sides of a read.
type readCase struct {
	name     string
	esize    int
	srcShape []int64
	srcStart []int64
	dstShape []int64
	dstStart []int64
	count    []int64
}

// readSelf is one case of TestReadSelf; with shared the source lies in
// memory from Alloc, which the read maps (checked) instead of using
// process_vm_readv.
func readSelf(t *testing.T, c readCase, shared bool) {
	src := transport.Block{ElemSize: c.esize, Shape: c.srcShape, Start: c.srcStart, Count: c.count}
	src.Buf = make([]byte, total(c.srcShape, c.esize))
	if shared {
		needPidfd(t)
		buf, err := Alloc(len(src.Buf) + 24)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			Detach()
			if err := Free(buf); err != nil {
				t.Error(err)
			}
		}()
		src.Buf = buf[24:] // not at the start of the region
	}
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
	if want := shared && n > 0; (d.Region != 0) != shared || (attachedTo(os.Getpid()) > 0) != want {
		t.Errorf("shared=%v: descriptor region %d, %d mappings of this process, want mapped=%v", shared, d.Region, attachedTo(os.Getpid()), want)
	}
}

// needPidfd skips a test of the mapped path on a kernel without pidfds
// (before Linux 5.6), where reads fall back to process_vm_readv.
func needPidfd(t testing.TB) {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err == unix.ENOSYS {
		t.Skip("no pidfd_open on this kernel")
	}
	if err != nil {
		t.Fatalf("pidfd_open of self: %v", err)
	}
	unix.Close(fd)
}

// attachedTo counts the mappings of pid's regions.
func attachedTo(pid int) int {
	attached.Lock()
	defer attached.Unlock()
	k := 0
	for _, a := range attached.list {
		if a.pid == pid {
			k++
		}
	}
	return k
}

// TestSharedFallback: a descriptor whose region cannot be mapped (another
// file's inode, a closed descriptor) is still read, by process_vm_readv,
// and maps nothing; Free refuses what Alloc did not return.
func TestSharedFallback(t *testing.T) {
	buf, err := Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = byte(i)
	}
	src := transport.Block{Buf: buf, ElemSize: 1, Shape: []int64{4096}, Start: []int64{0}, Count: []int64{4096}}
	good := Describe(src)
	if good.Region == 0 {
		t.Fatal("a block in memory from Alloc has no region")
	}
	otherFile := good
	otherFile.Region++
	closedFd := good
	closedFd.Fd = 1 << 20
	for _, d := range []Desc{otherFile, closedFd} {
		dst := transport.Block{Buf: make([]byte, 4096), ElemSize: 1, Shape: []int64{4096}, Start: []int64{0}, Count: []int64{4096}}
		if err := Read(d, dst); err != nil {
			t.Fatalf("region %d fd %d: %v", d.Region, d.Fd, err)
		}
		if !bytes.Equal(dst.Buf, buf) {
			t.Errorf("region %d fd %d: bytes differ", d.Region, d.Fd)
		}
		if n := attachedTo(os.Getpid()); n != 0 {
			t.Errorf("region %d fd %d: %d mappings, want none", d.Region, d.Fd, n)
		}
	}
	if err := Free(buf[1:]); err == nil {
		t.Error("Free of a slice inside a region: no error")
	}
	if err := Free(make([]byte, 8)); err == nil {
		t.Error("Free of heap memory: no error")
	}
	if err := Free(buf); err != nil {
		t.Error(err)
	}
	if _, err := Alloc(0); err == nil {
		t.Error("Alloc(0): no error")
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
		{1, 2, 3, 4, 5, 0, 0, 0, 0},         // magic
		{descMagic, 1, 0, 8, 8, 1, 1, 0},    // short
		{descMagic, 1, 0, 8, 8, 1, 1, 0, 1}, // no region words
		{descMagic, 1, 0, 8, 8, 1, 2, 0, 2, 0, 0, 0},         // 16 bytes of shape in an 8-byte buffer
		{descMagic, 0, 0, 8, 8, 1, 1, 0, 1, 0, 0, 0},         // pid 0
		{descMagic, 1, 0, 8, 8, 1, 1, 1, 1, 0, 0, 0},         // start+count beyond shape
		{descMagic, 1, 0, 8, 8, -1, 0, 0, 0},                 // negative rank
		{descMagic, 1, 0, 8, 8, 1 << 62, 0, 0, 0},            // huge rank
		{descMagic, 1, 0, -8, 8, 1, 1, 0, 1, 0, 0, 0},        // negative length
		{descMagic, 1, 0, 8, 0, 1, 1, 0, 1, 0, 0, 0},         // element size 0
		{descMagic, 1, 0, 8, 8, 1, 1, 0, 1, -1, 0, 0},        // negative region
		{descMagic, 1, 0, 8, 8, 1, 1, 0, 1, 5, -1, 0},        // negative fd
		{descMagic, 1, 0, 8, 8, 1, 1, 0, 1, 5, 3, -8},        // negative offset
		{descMagic, 1, 0, 8, 8, 1, 1, 0, 1, 5, 3, 1<<63 - 4}, // offset+length overflows
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
	f.Add(int64(descMagic), int64(1), int64(4096), int64(64), int64(8), int64(1), int64(8), int64(0), int64(8), int64(0), int64(0), int64(0))
	f.Add(int64(descMagic), int64(1), int64(4096), int64(64), int64(8), int64(1), int64(8), int64(0), int64(8), int64(77), int64(5), int64(128))
	f.Fuzz(func(t *testing.T, a, b, c, d, e, nd, x, y, z, rg, fd, off int64) {
		for _, w := range [][]int64{{a, b, c, d, e, nd, x, y, z, rg, fd, off}, {a, b, c, d, e, nd, rg, fd, off}} {
			got, err := Decode(w)
			if err != nil {
				continue
			}
			if !slicesEqual(got.Encode(), w) {
				t.Errorf("Decode(%v) encodes back to %v", w, got.Encode())
			}
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

// TestMain lets the test binary serve as the owner process of
// TestSharedOtherProcess.
func TestMain(m *testing.M) {
	if os.Getenv(ownerEnv) != "" {
		os.Exit(owner())
	}
	os.Exit(m.Run())
}

const ownerEnv = "CMA_TEST_OWNER"

// owner allocates a region, fills it, prints the descriptor of a block in
// it and waits for its stdin to close. The block is the small one of
// TestSharedOtherProcess, or with CMA_TEST_OWNER=bench the 64 MiB array of
// BenchmarkRead.
func owner() int {
	n, b := 1<<20, transport.Block{ElemSize: 8, Shape: []int64{64, 256}, Start: []int64{8, 16}, Count: []int64{32, 128}}
	if os.Getenv(ownerEnv) == "bench" {
		n, b = 64<<20, transport.Block{ElemSize: 8, Shape: benchShape, Start: []int64{0, 0, 0}, Count: benchShape}
	}
	buf, err := Alloc(n)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	for i := range buf {
		buf[i] = byte(i * 5)
	}
	b.Buf = buf[n-int(total(b.Shape, 8)):]
	fmt.Println(strings.Trim(fmt.Sprint(Describe(b).Encode()), "[]"))
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// startOwner starts the owner process (CMA_TEST_OWNER=mode) and returns
// the descriptor it printed; the owner ends at the test's cleanup.
func startOwner(tb testing.TB, mode string) Desc {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), ownerEnv+"="+mode)
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			tb.Errorf("owner: %v", err)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		tb.Fatalf("owner said %q: %v", line, err)
	}
	var w []int64
	for _, f := range strings.Fields(line) {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			tb.Fatalf("owner said %q", line)
		}
		w = append(w, v)
	}
	d, err := Decode(w)
	if err != nil {
		tb.Fatal(err)
	}
	if d.Region == 0 || d.Pid != cmd.Process.Pid {
		tb.Fatalf("descriptor %+v: want a region of pid %d", d, cmd.Process.Pid)
	}
	return d
}

// TestSharedOtherProcessLarge reads the 64 MiB array of BenchmarkRead from
// another process's Alloc'd memory into every other 2 KiB of a twice-as-wide
// array, in three ranges of uneven sizes (as a reader's threads do): large
// ranges take the streaming copy, and every byte must land where Pack would
// put it, with the other halves of the rows untouched.
func TestSharedOtherProcessLarge(t *testing.T) {
	needPidfd(t)
	d := startOwner(t, "bench")
	dst := transport.Block{ElemSize: 8, Shape: []int64{128, 256, 512}, Start: []int64{0, 0, 256}, Count: benchShape}
	dst.Buf = bytes.Repeat([]byte{0xEE}, int(total(dst.Shape, 8)))
	n := dst.Bytes()
	for _, r := range [][2]int64{{0, 12345}, {12345, n/2 + 999}, {n/2 + 13344, n - n/2 - 13344}} {
		if err := ReadRange(d, dst, r[0], r[1]); err != nil {
			t.Fatalf("range %v: %v", r, err)
		}
	}
	const row = 256 * 8 // bytes of one row of the owner's block
	for i := int64(0); i < n/row; i++ {
		got := dst.Buf[2*i*row : 2*(i+1)*row]
		for j := range got[:row] {
			if got[j] != 0xEE {
				t.Fatalf("row %d: byte %d outside the block changed", i, j)
			}
		}
		for j, v := range got[row:] {
			if want := byte((i*row + int64(j)) * 5); v != want {
				t.Fatalf("row %d byte %d = %d, want %d", i, j, v, want)
			}
		}
	}
	Detach()
}

// TestSharedOtherProcess reads a block from another process's Alloc'd
// memory: by mapping it (one mapping of that process afterwards), with the
// bytes Pack gives for the same block.
func TestSharedOtherProcess(t *testing.T) {
	needPidfd(t)
	d := startOwner(t, "test")
	if d.Off != 1<<20-64*256*8 {
		t.Fatalf("descriptor %+v: want offset %d", d, 1<<20-64*256*8)
	}
	src := transport.Block{Buf: make([]byte, 1<<20), ElemSize: 8, Shape: []int64{64, 256}, Start: []int64{8, 16}, Count: []int64{32, 128}}
	for i := range src.Buf {
		src.Buf[i] = byte(i * 5)
	}
	src.Buf = src.Buf[1<<20-64*256*8:]
	want := make([]byte, src.Bytes())
	if err := transport.Pack(src, want); err != nil {
		t.Fatal(err)
	}
	dst := transport.Block{Buf: make([]byte, len(want)), ElemSize: 8, Shape: []int64{32, 128}, Start: []int64{0, 0}, Count: []int64{32, 128}}
	if err := Read(d, dst); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst.Buf, want) {
		t.Error("bytes read from the owner's region differ from Pack")
	}
	if n := attachedTo(d.Pid); n != 1 {
		t.Errorf("%d mappings of the owner's regions, want 1", n)
	}
	Detach()
	if n := attachedTo(d.Pid); n != 0 {
		t.Errorf("%d mappings after Detach, want 0", n)
	}
}
