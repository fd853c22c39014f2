package ucx

import (
	"fmt"
	"testing"
)

func TestTagSendRecv(t *testing.T) {
	sizes := []int{0, 1, 4097, 1 << 20, 5<<20 + 3}
	for _, tls := range transports {
		t.Run(tls, func(t *testing.T) {
			a, b := newNode(t, tls), newNode(t, tls)
			ep := connect(t, a, b)
			for i, n := range sizes {
				t.Run(fmt.Sprint(n), func(t *testing.T) {
					const base = uint64(0xabc) << 32
					src := make([]byte, n)
					pattern(src, byte(i))
					dst := make([]byte, n+16) // room to spare: Info must say n
					recv, err := b.w.RecvTag(dst, base, 0xffffffff00000000)
					if err != nil {
						t.Fatal(err)
					}
					send, err := ep.SendTag(src, base|uint64(i))
					if err != nil {
						t.Fatal(err)
					}
					// Rendezvous needs both workers progressing at once.
					sent := make(chan error, 1)
					go func() { sent <- send.Wait(testTimeout) }()
					if err := recv.Wait(testTimeout); err != nil {
						t.Fatal(err)
					}
					if err := <-sent; err != nil {
						t.Fatal(err)
					}
					got, tag := recv.Info()
					if got != n || tag != base|uint64(i) {
						t.Fatalf("received %d bytes with tag %#x, want %d with %#x", got, tag, n, base|uint64(i))
					}
					checkPattern(t, "received", dst[:n], byte(i))
				})
			}
		})
	}
}

func TestRecvTruncated(t *testing.T) {
	a, b := newNode(t, "sm"), newNode(t, "sm")
	ep := connect(t, a, b)
	recv, err := b.w.RecvTag(make([]byte, 10), 5, TagMaskAll)
	if err != nil {
		t.Fatal(err)
	}
	send, err := ep.SendTag(make([]byte, 100), 5)
	if err != nil {
		t.Fatal(err)
	}
	go send.Wait(testTimeout)
	err = recv.Wait(testTimeout)
	if !IsStatus(err, StatusTruncated) {
		t.Fatalf("receive of 100 bytes into 10: got %v, want a truncation error", err)
	}
	t.Log(err)
}

func TestRecvCancel(t *testing.T) {
	b := newNode(t, "sm")
	recv, err := b.w.RecvTag(make([]byte, 10), 6, TagMaskAll)
	if err != nil {
		t.Fatal(err)
	}
	if err := recv.Cancel(testTimeout); err != nil {
		t.Fatal(err)
	}
	if !recv.Done() || !IsStatus(recv.Err(), StatusCanceled) {
		t.Fatalf("after Cancel: done %v, err %v", recv.Done(), recv.Err())
	}
}
