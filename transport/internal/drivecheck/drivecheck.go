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
		done, err := transport.Drive(t, x.Ps, budget, -1)
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
	if done, err := d.Drive(x.Ps, time.Second, -1); !done || err != nil {
		return fmt.Errorf("Drive on a completed set: %v, %v", done, err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		return fmt.Errorf("Drive on a completed set took %v", el)
	}
	return nil
}

// Watched checks Drive's watch between two ranks that have just passed a
// barrier. The peer sends a message with another tag at once and one with
// the watched tag after a pause; this rank drives a receive nobody sends to
// with a long budget, watching that tag. Drive must end, not done, no
// sooner than the pause (the other tag does not end it) and long before
// the budget, and TryRecv must then find the watched message.
func Watched(t transport.Transport, d transport.Driver, me, peer int) error {
	const (
		watch, other = 41, 42
		pause        = 100 * time.Millisecond
		budget       = 20 * time.Second
	)
	if me > peer {
		if _, err := t.Send(peer, other, []byte("other")); err != nil {
			return err
		}
		time.Sleep(pause)
		_, err := t.Send(peer, watch, []byte("watched"))
		return err
	}
	orphan, err := t.RecvBlock(peer, 998, Block(make([]float64, 4), []int64{4}, Box{Start: []int64{0}, Count: []int64{4}}))
	if err != nil {
		return err
	}
	defer orphan.Cancel()
	start := time.Now()
	done, err := d.Drive([]transport.Pending{orphan}, budget, watch)
	if el := time.Since(start); done || err != nil || el < pause/2 || el > budget/4 {
		return fmt.Errorf("Drive watching tag %d: done=%v err=%v after %v; want not done after about %v", watch, done, err, el, pause)
	}
	for _, tag := range []int{watch, other} {
		end := time.Now().Add(10 * time.Second)
		for {
			m, ok, err := t.TryRecv(tag)
			if err != nil {
				return err
			}
			if ok {
				if m.Source != peer {
					return fmt.Errorf("message with tag %d from rank %d, want %d", tag, m.Source, peer)
				}
				break
			}
			if time.Now().After(end) {
				return fmt.Errorf("no message with tag %d after Drive", tag)
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

// Arrived checks, between two ranks that have just passed a barrier, that
// one TryRecv finds a message that arrived while this rank made no
// transport call: the peer sends at once and completes its send, this rank
// sleeps and then looks once. A transport that pulls messages in only as a
// side effect of a look that missed would leave it to the next poll, which
// costs a waiting rank one sleep per message hop.
func Arrived(t transport.Transport, me, peer int) error {
	const (
		tag   = 43
		pause = 300 * time.Millisecond
	)
	if me > peer {
		p, err := t.Send(peer, tag, []byte("arrived"))
		if err != nil {
			return err
		}
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			done, err := p.Test()
			if done || err != nil {
				return err
			}
			if time.Now().After(end) {
				return fmt.Errorf("send with tag %d not complete after 10 s", tag)
			}
		}
	}
	time.Sleep(pause)
	m, ok, err := t.TryRecv(tag)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("one TryRecv after %v asleep did not find the message with tag %d the peer sent at once", pause, tag)
	case string(m.Data) != "arrived" || m.Source != peer:
		return fmt.Errorf("TryRecv(%d) = %q from rank %d, want %q from %d", tag, m.Data, m.Source, "arrived", peer)
	}
	return nil
}
