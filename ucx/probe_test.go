package ucx

import (
	"fmt"
	"testing"
)

func TestProbeRecv(t *testing.T) {
	const mask = 0xffff // match on the low bits only, like a wildcard source
	sizes := []int{0, 17, 1<<20 + 3}
	for _, tls := range transports {
		t.Run(tls, func(t *testing.T) {
			a, b := newNode(t, tls), newNode(t, tls)
			ep := connect(t, a, b)
			if m, err := b.w.Probe(7, mask); m != nil || err != nil {
				t.Fatalf("probe of an empty queue: %v, %v", m, err)
			}
			for i, n := range sizes {
				t.Run(fmt.Sprint(n), func(t *testing.T) {
					tag := uint64(i+1)<<32 | 7
					src := make([]byte, n)
					pattern(src, byte(i))
					send, err := ep.SendTag(src, tag)
					if err != nil {
						t.Fatal(err)
					}
					sent := make(chan error, 1)
					go func() { sent <- send.Wait(testTimeout) }()
					// A message with another tag must not be probed.
					other, err := ep.SendTag([]byte{1}, 8)
					if err != nil {
						t.Fatal(err)
					}
					var m *Probed
					err = b.w.WaitTimeout(testTimeout, func() bool {
						m, err = b.w.Probe(7, mask)
						return m != nil || err != nil
					})
					if err != nil {
						t.Fatal(err)
					}
					if m.Length != n || m.Tag != tag {
						t.Fatalf("probed %d bytes with tag %#x, want %d with %#x", m.Length, m.Tag, n, tag)
					}
					dst := make([]byte, m.Length)
					r, err := m.Recv(dst)
					if err != nil {
						t.Fatal(err)
					}
					if err := r.Wait(testTimeout); err != nil {
						t.Fatal(err)
					}
					if got, gtag := r.Info(); got != n || gtag != tag {
						t.Fatalf("received %d bytes with tag %#x, want %d with %#x", got, gtag, n, tag)
					}
					checkPattern(t, "received", dst, byte(i))
					if err := <-sent; err != nil {
						t.Fatal(err)
					}
					if _, err := m.Recv(dst); err == nil {
						t.Fatal("second Recv of a probed message: no error")
					}
					// Drain the other message with an exact receive.
					r8, err := b.w.RecvTag(make([]byte, 1), 8, TagMaskAll)
					if err != nil {
						t.Fatal(err)
					}
					if err := r8.Wait(testTimeout); err != nil {
						t.Fatal(err)
					}
					if err := other.Wait(testTimeout); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}
