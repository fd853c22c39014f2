package mpitransport

import (
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/transport"
)

// TestHolding checks when a rank reading with one way holds the blocks
// whose descriptors came: only while all are of holdMin bytes or more and
// none came holdFor ago.
func TestHolding(t *testing.T) {
	now := time.Unix(1000, 0)
	block := func(n int64) transport.Block {
		return transport.Block{ElemSize: 1, Shape: []int64{n}, Start: []int64{0}, Count: []int64{n}}
	}
	recv := func(n int64, ago time.Duration) *singleRecv { return &singleRecv{b: block(n), came: now.Add(-ago)} }
	cases := []struct {
		name  string
		ready []*singleRecv
		want  bool
	}{
		{"one large, just came", []*singleRecv{recv(holdMin, 0)}, true},
		{"one large within the bound", []*singleRecv{recv(holdMin, holdFor-time.Microsecond)}, true},
		{"one large at the bound", []*singleRecv{recv(holdMin, holdFor)}, false},
		{"one small", []*singleRecv{recv(holdMin-1, 0)}, false},
		{"several large within", []*singleRecv{recv(holdMin, time.Millisecond), recv(4*holdMin, 0), recv(holdMin, holdFor/2)}, true},
		{"a small one among large", []*singleRecv{recv(holdMin, 0), recv(holdMin/2, 0)}, false},
		{"the oldest past the bound", []*singleRecv{recv(holdMin, 0), recv(holdMin, holdFor+time.Millisecond)}, false},
	}
	for _, c := range cases {
		if got := holding(c.ready, now); got != c.want {
			t.Errorf("%s: holding = %v, want %v", c.name, got, c.want)
		}
	}
}
