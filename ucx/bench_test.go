package ucx

import (
	"fmt"
	"testing"
)

// BenchmarkPut measures put bandwidth into a peer worker's UCX-allocated
// window (put + endpoint flush per operation), from pinned Go memory and
// from UCX-allocated memory, over shared memory and tcp.
func BenchmarkPut(b *testing.B) {
	for _, tls := range []string{"sm", "tcp"} {
		for _, src := range []string{"go", "ucx"} {
			for _, mib := range []int{1, 16, 64} {
				b.Run(fmt.Sprintf("%s/src=%s/%dMiB", tls, src, mib), func(b *testing.B) {
					benchPut(b, tls, src == "ucx", mib<<20)
				})
			}
		}
	}
}

func benchPut(b *testing.B, tls string, ucxSrc bool, size int) {
	a, t := newNode(b, tls), newNode(b, tls)
	ep := connect(b, a, t)
	win, err := t.ctx.MemAlloc(size)
	if err != nil {
		b.Fatal(err)
	}
	defer win.Unmap()
	key, err := win.PackRkey()
	if err != nil {
		b.Fatal(err)
	}
	rk, err := ep.UnpackRkey(key)
	if err != nil {
		b.Fatal(err)
	}
	defer rk.Destroy()
	src := make([]byte, size)
	if ucxSrc {
		m, err := a.ctx.MemAlloc(size)
		if err != nil {
			b.Fatal(err)
		}
		defer m.Unmap()
		src = m.Bytes()
	}
	pattern(src, 1)
	stop := serve(t.w)
	defer stop()
	put := func() {
		p, err := ep.Put(src, win.Addr(), rk)
		if err != nil {
			b.Fatal(err)
		}
		f, err := ep.Flush()
		if err != nil {
			b.Fatal(err)
		}
		if err := WaitAll(a.w, []*Request{p, f}, testTimeout); err != nil {
			b.Fatal(err)
		}
	}
	put() // connect lanes and fault pages in outside the timing
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		put()
	}
	b.StopTimer()
	if i := firstBad(win.Bytes(), 1); i >= 0 {
		b.Fatalf("window wrong at byte %d", i)
	}
}
