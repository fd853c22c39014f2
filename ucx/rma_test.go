package ucx

import (
	"testing"
)

// window is a remote window as a peer sees it: base address and packed key.
type window struct {
	mem  *Memory
	rkey []byte
}

func newWindow(t *testing.T, n *node, size int, ucxAlloc bool) *window {
	t.Helper()
	var m *Memory
	var err error
	if ucxAlloc {
		m, err = n.ctx.MemAlloc(size)
	} else {
		m, err = n.ctx.MemMap(make([]byte, size))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unmap() })
	if m.Len() != size || len(m.Bytes()) != size {
		t.Fatalf("mapped %d bytes (slice %d), want %d", m.Len(), len(m.Bytes()), size)
	}
	k, err := m.PackRkey()
	if err != nil {
		t.Fatal(err)
	}
	return &window{m, k}
}

func TestPutGet(t *testing.T) {
	const size = 6 << 20 // > 4 MiB: several protocol fragments
	for _, tls := range transports {
		for _, alloc := range []bool{false, true} {
			name := tls + "/go-memory"
			if alloc {
				name = tls + "/ucx-memory"
			}
			t.Run(name, func(t *testing.T) {
				a, b := newNode(t, tls), newNode(t, tls)
				ep := connect(t, a, b)
				win := newWindow(t, b, size, alloc)
				pattern(win.mem.Bytes(), 0x33)
				stop := serve(b.w) // tcp emulates RMA with the target's help
				defer func() { stop() }()
				rk, err := ep.UnpackRkey(win.rkey)
				if err != nil {
					t.Fatal(err)
				}
				defer rk.Destroy()

				// Get the first half, put into the second half at an odd offset.
				half := size / 2
				got := make([]byte, half)
				g, err := ep.Get(got, win.mem.Addr(), rk)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Wait(testTimeout); err != nil {
					t.Fatal(err)
				}
				checkPattern(t, "get", got, 0x33)

				src := make([]byte, half-1)
				pattern(src, 0x77)
				p, err := ep.Put(src, win.mem.Addr()+uint64(half)+1, rk)
				if err != nil {
					t.Fatal(err)
				}
				f, err := ep.Flush()
				if err != nil {
					t.Fatal(err)
				}
				if err := WaitAll(a.w, []*Request{p, f}, testTimeout); err != nil {
					t.Fatal(err)
				}
				stop()
				w := win.mem.Bytes()
				checkPattern(t, "window after put", w[half+1:], 0x77)
				checkPattern(t, "window before put", w[:half+1], 0x33)

				// A worker flush also completes outstanding puts.
				p, err = ep.Put(src[:1000], win.mem.Addr(), rk)
				if err != nil {
					t.Fatal(err)
				}
				stop = serve(b.w)
				wf, err := a.w.Flush()
				if err != nil {
					t.Fatal(err)
				}
				if err := WaitAll(a.w, []*Request{p, wf}, testTimeout); err != nil {
					t.Fatal(err)
				}
				checkPattern(t, "window after worker flush", w[:1000], 0x77)
			})
		}
	}
}

func TestRkeyChecks(t *testing.T) {
	a, b := newNode(t, "sm"), newNode(t, "sm")
	ep := connect(t, a, b)
	if _, err := ep.UnpackRkey(nil); err == nil {
		t.Error("unpacking an empty key succeeded")
	}
	if _, err := ep.Put([]byte{1}, 0, nil); err == nil {
		t.Error("put without a key succeeded")
	}
	if _, err := a.ctx.MemMap(nil); err == nil {
		t.Error("mapping an empty buffer succeeded")
	}
}

// TestMapped: a peer's UCX-allocated window is mapped here over shared
// memory (stores through the slice land in the window, also at an offset),
// and not over tcp; bad lengths fail.
func TestMapped(t *testing.T) {
	const size = 1 << 20
	for _, c := range []struct {
		tls    string
		mapped bool
	}{{"sm", true}, {"tcp", false}} {
		t.Run(c.tls, func(t *testing.T) {
			a, b := newNode(t, c.tls), newNode(t, c.tls)
			ep := connect(t, a, b)
			win := newWindow(t, b, size, true)
			rk, err := ep.UnpackRkey(win.rkey)
			if err != nil {
				t.Fatal(err)
			}
			defer rk.Destroy()
			p, err := rk.Mapped(win.mem.Addr()+4096, size-4096)
			if !c.mapped {
				if err == nil {
					t.Fatalf("Mapped over %s succeeded", c.tls)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p) != size-4096 {
				t.Fatalf("mapped %d bytes, want %d", len(p), size-4096)
			}
			pattern(p, 0x5a)
			checkPattern(t, "window after stores", win.mem.Bytes()[4096:], 0x5a)
			for _, bad := range []struct {
				off uint64
				n   int
			}{{0, 0}, {0, -1}} {
				if _, err := rk.Mapped(win.mem.Addr()+bad.off, bad.n); err == nil {
					t.Errorf("Mapped(+%d, %d) succeeded", bad.off, bad.n)
				}
			}
		})
	}
}
