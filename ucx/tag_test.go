package ucx

import (
	"fmt"
	"strings"
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
					sendAndReceive(t, ep, src, base|uint64(i), recv)
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

// TestRecvTagRuns: a message received into runs fills them in order, and
// the bytes between them stay as they were. Sizes cover an eager message
// and a rendezvous one whose runs start mid-row.
func TestRecvTagRuns(t *testing.T) {
	for _, tls := range transports {
		t.Run(tls, func(t *testing.T) {
			a, b := newNode(t, tls), newNode(t, tls)
			ep := connect(t, a, b)
			for i, c := range []struct{ rows, rowLen, gap int64 }{{3, 100, 28}, {300, 2048, 2048}, {2500, 1000, 7}} {
				t.Run(fmt.Sprintf("%dx%d", c.rows, c.rowLen), func(t *testing.T) {
					n := c.rows * c.rowLen
					src := make([]byte, n)
					pattern(src, byte(i))
					dst := make([]byte, c.rows*(c.rowLen+c.gap))
					for j := range dst {
						dst[j] = 0xEE
					}
					// The first run starts inside the first row and the rest
					// of it is the second run, as a chunk boundary cuts one.
					runs := [][2]int64{{0, c.rowLen / 2}, {c.rowLen / 2, c.rowLen - c.rowLen/2}}
					for r := int64(1); r < c.rows; r++ {
						runs = append(runs, [2]int64{r * (c.rowLen + c.gap), c.rowLen})
					}
					recv, err := b.w.RecvTagRuns(dst, runs, 9, TagMaskAll)
					if err != nil {
						t.Fatal(err)
					}
					sendAndReceive(t, ep, src, 9, recv)
					if got, _ := recv.Info(); int64(got) != n {
						t.Fatalf("received %d bytes, want %d", got, n)
					}
					var got []byte
					for r := int64(0); r < c.rows; r++ {
						row := dst[r*(c.rowLen+c.gap):]
						got = append(got, row[:c.rowLen]...)
						for j, v := range row[c.rowLen : c.rowLen+c.gap] {
							if v != 0xEE {
								t.Fatalf("byte %d after row %d was written (%#x)", j, r, v)
							}
						}
					}
					checkPattern(t, "rows", got, byte(i))
				})
			}
		})
	}
}

// TestRecvTagRunsOutside: a run past the buffer is refused before UCX sees it.
func TestRecvTagRunsOutside(t *testing.T) {
	b := newNode(t, "sm")
	for _, runs := range [][][2]int64{{{0, 11}}, {{-1, 2}}, {{4, -1}}, {{0, 5}, {8, 3}}} {
		if _, err := b.w.RecvTagRuns(make([]byte, 10), runs, 1, TagMaskAll); err == nil || !strings.Contains(err.Error(), "outside the 10-byte buffer") {
			t.Errorf("runs %v: got %v, want an error naming the buffer", runs, err)
		}
	}
}
