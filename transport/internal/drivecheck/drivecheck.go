// Package drivecheck is the transport-independent part of the helper
// programs that test transport.Drive: two ranks exchange sets of boxes of a
// 3-D float64 array, complete them with Drive and check every element.
package drivecheck

import (
	"fmt"
	"math"
	"runtime"
	"time"
	"unsafe"

	"github.com/couplet-hpc/couplet/transport"
)

// Box is one sub-block of the exchanged array.
type Box struct{ Start, Count []int64 }

// Exchange is one rank's side of an exchange: its source array, one array
// per box set for the peer's boxes, and the operations in flight.
type Exchange struct {
	Shape []int64
	Src   []float64
	Dsts  [][]float64
	Ps    []transport.Pending
	Tag   int // the next unused tag
}

// Value is element i of rank r's source array.
func Value(r, i int) float64 { return float64(r)*1e7 + float64(i) }

// Block views buf, an array of shape, as b's transport block.
func Block(buf []float64, shape []int64, b Box) transport.Block {
	bytes := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 8*len(buf))
	return transport.Block{Buf: bytes, ElemSize: 8, Shape: shape, Start: b.Start, Count: b.Count}
}

// Post starts, for every box of every set, receiving the peer's box into
// the set's array (filled with NaN first, so a missing box shows) and
// sending this rank's same box to the peer, one tag per box from 0.
func Post(t transport.Transport, me, peer int, shape []int64, sets [][]Box) (*Exchange, error) {
	n := int(shape[0] * shape[1] * shape[2])
	x := &Exchange{Shape: shape, Src: make([]float64, n), Dsts: make([][]float64, len(sets))}
	for i := range x.Src {
		x.Src[i] = Value(me, i)
	}
	for s, bs := range sets {
		x.Dsts[s] = make([]float64, n)
		for i := range x.Dsts[s] {
			x.Dsts[s][i] = math.NaN()
		}
		for _, b := range bs {
			p, err := t.RecvBlock(peer, x.Tag, Block(x.Dsts[s], shape, b))
			if err != nil {
				return nil, fmt.Errorf("RecvBlock: %w", err)
			}
			q, err := t.SendBlock(peer, x.Tag, Block(x.Src, shape, b))
			if err != nil {
				return nil, fmt.Errorf("SendBlock: %w", err)
			}
			x.Ps = append(x.Ps, p, q)
			x.Tag++
		}
	}
	return x, nil
}

// Complete calls transport.Drive with budget until every operation is done,
// failing after deadline. Between calls it sleeps briefly for budget 0 (a
// single pass) and yields otherwise, and it collects garbage every 16 calls:
// the buffers must stay pinned. It reports how many calls it took.
func (x *Exchange) Complete(t transport.Transport, budget, deadline time.Duration) (int, error) {
	end := time.Now().Add(deadline)
	for calls := 1; ; calls++ {
		done, err := transport.Drive(t, x.Ps, budget)
		if err != nil {
			return calls, fmt.Errorf("Drive (budget %v): %w", budget, err)
		}
		if done {
			return calls, nil
		}
		if time.Now().After(end) {
			return calls, fmt.Errorf("budget %v: blocks not complete after %v (%d Drive calls)", budget, deadline, calls)
		}
		if budget <= 0 {
			time.Sleep(50 * time.Microsecond)
		} else {
			runtime.Gosched()
		}
		if calls%16 == 0 {
			runtime.GC()
		}
	}
}

// Check reports the first element of any set's array that is not the
// peer's.
func (x *Exchange) Check(peer int) error {
	for s, dst := range x.Dsts {
		for i, v := range dst {
			if want := Value(peer, i); v != want {
				return fmt.Errorf("set %d: element %d = %v, want %v", s, i, v, want)
			}
		}
	}
	return nil
}

// CheckDoneAgain drives the completed operations once more through d: they
// must be done again at once.
func (x *Exchange) CheckDoneAgain(d transport.Driver) error {
	start := time.Now()
	if done, err := d.Drive(x.Ps, time.Second); !done || err != nil {
		return fmt.Errorf("Drive on a completed set: %v, %v", done, err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		return fmt.Errorf("Drive on a completed set took %v", el)
	}
	return nil
}
