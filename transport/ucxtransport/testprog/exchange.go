package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

// msgSizes are the control message sizes every rank sends every rank.
var msgSizes = []int{0, 1, 4097, 70000, 1<<20 + 5}

const (
	tagMsg   = 7
	tagOther = 8 // one more message per pair, received after the rest
	tagBye   = 9
)

func payload(src, dst, i, n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(k*31 + src*7 + dst*13 + i + k>>9)
	}
	return b
}

// controlMessages sends every message size to every rank (itself too) and
// checks arrival order per source and every byte.
func controlMessages(t *ucxtransport.Transport) {
	me, n := t.Rank(), t.Size()
	var sends []transport.Pending
	for dst := range n {
		for i, sz := range msgSizes {
			p, err := t.Send(dst, tagMsg, payload(me, dst, i, sz))
			if err != nil {
				mpitest.Fatal(rank, "send to %d: %v", dst, err)
			}
			sends = append(sends, p)
		}
		p, err := t.Send(dst, tagOther, []byte(fmt.Sprintf("other %d->%d", me, dst)))
		if err != nil {
			mpitest.Fatal(rank, "send to %d: %v", dst, err)
		}
		sends = append(sends, p)
	}
	next := make([]int, n) // next message index expected from each source
	got := 0
	poll("receive control messages", func() (bool, error) {
		for {
			m, ok, err := t.TryRecv(tagMsg)
			if err != nil || !ok {
				if err != nil {
					return false, err
				}
				break
			}
			if m.Tag != tagMsg || m.Source < 0 || m.Source >= n || next[m.Source] >= len(msgSizes) {
				return false, fmt.Errorf("unexpected message from %d tag %d (%d bytes)", m.Source, m.Tag, len(m.Data))
			}
			i := next[m.Source]
			if want := payload(m.Source, me, i, msgSizes[i]); !bytes.Equal(m.Data, want) {
				return false, fmt.Errorf("message %d from %d: %d bytes, want %d, or wrong contents (out of order?)", i, m.Source, len(m.Data), len(want))
			}
			next[m.Source]++
			got++
		}
		sent, err := testAll(sends)
		return sent && got == n*len(msgSizes), err
	})
	seen := make([]bool, n)
	for range n {
		var m transport.Message
		poll("receive the other tag", func() (bool, error) {
			var ok bool
			var err error
			m, ok, err = t.TryRecv(tagOther)
			return ok, err
		})
		if string(m.Data) != fmt.Sprintf("other %d->%d", m.Source, me) || seen[m.Source] {
			mpitest.Fatal(rank, "tag %d: message %q from %d", tagOther, m.Data, m.Source)
		}
		seen[m.Source] = true
	}
	if _, ok, err := t.TryRecv(tagMsg); ok || err != nil {
		mpitest.Fatal(rank, "extra message with tag %d (err %v)", tagMsg, err)
	}
}

// goodbye makes sure no rank closes while another still needs it.
func goodbye(t *ucxtransport.Transport) {
	var sends []transport.Pending
	for dst := range t.Size() {
		p, err := t.Send(dst, tagBye, nil)
		if err != nil {
			mpitest.Fatal(rank, "goodbye to %d: %v", dst, err)
		}
		sends = append(sends, p)
	}
	got := 0
	poll("goodbyes", func() (bool, error) {
		for {
			_, ok, err := t.TryRecv(tagBye)
			if err != nil {
				return false, err
			}
			if !ok {
				break
			}
			got++
		}
		sent, err := testAll(sends)
		return sent && got == t.Size(), err
	})
}

// errorCases: a block of the wrong size is an error, and a receive that
// nothing matches can be canceled.
func errorCases(t *ucxtransport.Transport) {
	comps := t.Components()
	sender, receiver := comps[0][0], comps[1][0]
	const tagMismatch, tagNever = 200, 201
	vec := func(n int64) transport.Block {
		return transport.Block{Buf: make([]byte, 8*n), ElemSize: 8, Shape: []int64{n}, Start: []int64{0}, Count: []int64{n}}
	}
	switch t.Rank() {
	case sender:
		p, err := t.SendBlock(receiver, tagMismatch, vec(10))
		if err != nil {
			mpitest.Fatal(rank, "send mismatched block: %v", err)
		}
		poll("send mismatched block", func() (bool, error) { return p.Test() })
	case receiver:
		p, err := t.RecvBlock(sender, tagMismatch, vec(12))
		if err != nil {
			mpitest.Fatal(rank, "receive mismatched block: %v", err)
		}
		rerr := outcome("receive mismatched block", p)
		if rerr == nil || !strings.Contains(rerr.Error(), "differ in size") {
			mpitest.Fatal(rank, "block of 10 elements received as 12: error %v, want a size mismatch", rerr)
		}
	}
	if *reads > 0 {
		singleErrors(t, sender, receiver, vec)
	}
	for _, from := range []int{(t.Rank() + 1) % t.Size(), t.Rank()} {
		p, err := t.RecvBlock(from, tagNever, vec(4))
		if err != nil {
			mpitest.Fatal(rank, "receive: %v", err)
		}
		if err := p.Cancel(); err != nil {
			mpitest.Fatal(rank, "cancel a receive from %d: %v", from, err)
		}
		if done, err := p.Test(); !done || err != ucxtransport.ErrCanceled {
			mpitest.Fatal(rank, "canceled receive from %d: done %v, err %v", from, done, err)
		}
	}
}

// singleErrors: a block read by single copy into a larger one fails on both
// sides with errors that say why, and a canceled single-copy receive
// reports ErrCanceled.
func singleErrors(t *ucxtransport.Transport, sender, receiver int, vec func(int64) transport.Block) {
	const tagMismatch, tagNever = 202, 203
	const n = cma.MinBlock / 8 // elements: the smallest block read by single copy
	var p transport.Pending
	var err error
	switch t.Rank() {
	case sender:
		p, err = t.SendBlock(receiver, tagMismatch, vec(n))
	case receiver:
		p, err = t.RecvBlock(sender, tagMismatch, vec(n+1))
	default:
		return
	}
	if err != nil {
		mpitest.Fatal(rank, "start the mismatched single-copy block: %v", err)
	}
	perr := outcome("mismatched single-copy block", p)
	want := map[int]string{sender: "could not read the block", receiver: "differ in size"}[t.Rank()]
	if perr == nil || !strings.Contains(perr.Error(), want) {
		mpitest.Fatal(rank, "single-copy block of %d elements read as %d: error %v, want one saying %q", n, n+1, perr, want)
	}
	if t.Rank() == receiver {
		p, err := t.RecvBlock(sender, tagNever, vec(n))
		if err != nil {
			mpitest.Fatal(rank, "receive: %v", err)
		}
		if err := p.Cancel(); err != nil {
			mpitest.Fatal(rank, "cancel a single-copy receive: %v", err)
		}
		if done, err := p.Test(); !done || err != ucxtransport.ErrCanceled {
			mpitest.Fatal(rank, "canceled single-copy receive: done %v, err %v", done, err)
		}
	}
}

// outcome tests p until it is done and returns its error, failing the
// phase if it is not done within the phase's time.
func outcome(what string, p transport.Pending) error {
	var perr error
	poll(what, func() (bool, error) {
		done, err := p.Test()
		perr = err
		return done, nil
	})
	return perr
}
