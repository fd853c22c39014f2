package hugemem

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestMap(t *testing.T) {
	for _, n := range []int{1, 4095, 4096, Size - 1, Size, Size + 1, 3*Size + 12345} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b, err := Map(n)
			if err != nil {
				t.Fatal(err)
			}
			start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			if len(b) != n || start%Size != 0 {
				t.Fatalf("got %d bytes at %#x, want %d at a multiple of %#x", len(b), start, n, Size)
			}
			if b[0] != 0 || b[n-1] != 0 {
				t.Fatalf("fresh memory not zero: %d, %d", b[0], b[n-1])
			}
			b[0], b[n-1] = 1, 2
			if err := mapped(b[:cap(b)]); err != nil {
				t.Fatalf("[%#x, +%d) not all mapped: %v", start, cap(b), err)
			}
			if err := Unmap(b[:1]); err != nil {
				t.Fatal(err)
			}
			page := os.Getpagesize()
			for _, p := range []int{0, cap(b) - page} { // its first and its last page
				if err := mapped(b[p : p+page]); !errors.Is(err, unix.ENOMEM) {
					t.Fatalf("after Unmap, the page at %d of %d: %v, want ENOMEM (unmapped)", p, cap(b), err)
				}
			}
		})
	}
	if err := Unmap(nil); err != nil {
		t.Fatalf("Unmap(nil): %v", err)
	}
	if _, err := Map(0); err == nil {
		t.Fatal("Map(0): no error")
	}
}

// TestNoMark checks the point of the package: where the kernel collapses, the memory
// carries no MADV_HUGEPAGE mark (VmFlags "hg"), so khugepaged never scans the process
// for it; where it cannot (EINVAL), the mark is the fallback.
func TestNoMark(t *testing.T) {
	b, err := Map(4 * Size)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(b)
	flags, huge := smaps(t, uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	marked := slices.Contains(flags, "hg")
	if want := !collapses(t); marked != want {
		t.Fatalf("VmFlags %v: marked %v, want %v (kernel collapses: %v)", flags, marked, want, !want)
	}
	t.Logf("AnonHugePages %d kB of %d", huge, 4*Size>>10)
}

func TestMakeHuge(t *testing.T) {
	einval, eagain := unix.EINVAL, unix.EAGAIN
	for _, c := range []struct {
		name  string
		whole int
		fail  map[int]error
		want  []string
	}{
		{"collapses", 2 * Size, nil, []string{"populate 3", "collapse 2"}},
		{"no whole huge page", 0, nil, nil},
		{"no populate", 2 * Size, map[int]error{unix.MADV_POPULATE_WRITE: einval}, []string{"populate 3", "mark 2"}},
		{"no collapse", 2 * Size, map[int]error{unix.MADV_COLLAPSE: einval}, []string{"populate 3", "collapse 2", "mark 2"}},
		{"no free huge page", 2 * Size, map[int]error{unix.MADV_COLLAPSE: eagain}, []string{"populate 3", "collapse 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			names := map[int]string{unix.MADV_POPULATE_WRITE: "populate", unix.MADV_COLLAPSE: "collapse", unix.MADV_HUGEPAGE: "mark"}
			makeHuge(make([]byte, 3*Size), c.whole, func(b []byte, advice int) error {
				got = append(got, fmt.Sprintf("%s %d", names[advice], len(b)/Size))
				return c.fail[advice]
			})
			if !slices.Equal(got, c.want) {
				t.Fatalf("advice %q, want %q", got, c.want)
			}
		})
	}
}

// collapses reports whether this kernel has MADV_COLLAPSE (and MADV_POPULATE_WRITE).
func collapses(t *testing.T) bool {
	m, err := unix.Mmap(-1, 0, 2*Size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	err = unix.Madvise(m, unix.MADV_POPULATE_WRITE)
	if err == nil {
		err = unix.Madvise(m, unix.MADV_COLLAPSE)
	}
	return !errors.Is(err, unix.EINVAL)
}

// mapped syncs b (MS_ASYNC, which writes nothing back for anonymous memory): nil when
// every page is mapped, ENOMEM when one is not.
func mapped(b []byte) error { return unix.Msync(b, unix.MS_ASYNC) }

// smaps returns the VmFlags and AnonHugePages (kB) of the mapping that holds addr (the
// kernel may have merged it with a neighbour of the same flags).
func smaps(t *testing.T, addr uintptr) (flags []string, hugeKB int) {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(l, "%x-%x", &lo, &hi); err == nil { // a mapping's first line
			in = lo <= addr && addr < hi
			continue
		}
		if !in {
			continue
		}
		if v, ok := strings.CutPrefix(l, "AnonHugePages:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &hugeKB)
		}
		if v, ok := strings.CutPrefix(l, "VmFlags:"); ok {
			return strings.Fields(v), hugeKB
		}
	}
	t.Fatalf("no mapping holds %#x in /proc/self/smaps", addr)
	return nil, 0
}
