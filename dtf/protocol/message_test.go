package protocol

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/couplet-hpc/couplet/internal/wire"
	"github.com/couplet-hpc/couplet/matcher"
)

func sampleEnvelopes() []*Envelope {
	box := matcher.Box{Start: []int64{0, 4}, Count: []int64{2, 3}}
	return []*Envelope{
		{Kind: Header, Path: "out/a.nc", Session: 1, FileID: 3, Header: []byte{0x80}, Ranks: []int{5, 6}},
		{Kind: WriteReqs, Path: "a.nc", Epoch: 2, NumRecs: 4, Writes: []matcher.Write{{Rank: 1, Var: 2, Seq: 9, Box: box}}, Ranks: []int{1, 4}},
		{Kind: ReadReqs, Path: "a.nc", Round: 3, Reads: []matcher.Read{{Rank: 0, Var: 2, ID: 7, Box: box}}, Final: true, Ranks: []int{0, 2}, Settle: true, Sent: 12},
		{Kind: Expect, Path: "a.nc", Sched: []Tagged{{T: matcher.Transfer{Writer: 1, Reader: 0, Var: 2, ReadID: 7, Seq: 9, Box: box}, ID: 11, Peer: 4}},
			Missing: []matcher.Uncovered{{Reader: 0, Var: 2, ReadID: 7, Missing: []matcher.Box{box}}}, Writers: 300e6, Pushers: []int{4, 6}, Drain: []Tagged{{T: matcher.Transfer{Writer: 1, Reader: 2, Var: 3, ReadID: 4, Seq: 5, Box: box}, ID: 9, Peer: 6}}},
		{Kind: EpochDone, Path: "a.nc", Epoch: 1, Err: "boom", Closed: []int{3}},
		{Kind: Verdict, Path: "a.nc", Session: 1, Epoch: 3, NumRecs: 2, Sent: 14},
		{Kind: WriteReqs, Path: "a.nc", Epoch: 1, Ranks: []int{0, 2}, Multiple: true},
		{Kind: DoneMultiple, Path: "a.nc", Session: 2, Epoch: 1, Ranks: []int{1, 2}},
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	for _, m := range sampleEnvelopes() {
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		if !reflect.DeepEqual(m, got) {
			t.Fatalf("%s: round trip\n%+v\n%+v", m.Kind, m, got)
		}
	}
}

// TestReflectionReadsEnvelopes checks that the generated encoding is the
// msgpack that a reflection decoder (msgpack/v5, standing for any other peer)
// reads back to the same message: re-encoded, it gives the same bytes.
func TestReflectionReadsEnvelopes(t *testing.T) {
	for _, m := range sampleEnvelopes() {
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		var back Envelope
		if err := wire.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		again, err := back.Encode()
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s: reflection read %+v, %v", m.Kind, back, err)
		}
	}
}

func TestEnvelopeRejects(t *testing.T) {
	bad := []*Envelope{
		{Kind: 0},
		{Kind: kindEnd},
		{Kind: ReadReqs, Epoch: -1},
		{Kind: WriteReqs, Writes: []matcher.Write{{Box: matcher.Box{Start: []int64{0}, Count: []int64{-1}}}}},
		{Kind: ReadReqs, Reads: []matcher.Read{{Box: matcher.Box{Start: []int64{0, 1}, Count: []int64{1}}}}},
	}
	for i, m := range bad {
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(b); err == nil {
			t.Errorf("case %d (%s) accepted", i, m.Kind)
		}
	}
	if _, err := Decode([]byte{0xdd, 0xff, 0xff, 0xff, 0xff}); err == nil {
		t.Error("hostile array length accepted")
	}
}

// TestDecodeFrame reads frames of envelopes back to back (AppendTo): every
// envelope in order, and an error naming the first bad one.
func TestDecodeFrame(t *testing.T) {
	frame := func(ms ...*Envelope) []byte {
		var b []byte
		for _, m := range ms {
			var err error
			if b, err = m.AppendTo(b); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	all := sampleEnvelopes()
	whole := frame(all...)
	cases := []struct {
		name string
		b    []byte
		want []*Envelope // nil: an error
	}{
		{"one", frame(all[0]), all[:1]},
		{"all", whole, all},
		{"empty", nil, nil},
		{"last cut short", whole[:len(whole)-1], nil},
		{"bad kind second", frame(all[0], &Envelope{Kind: kindEnd}), nil},
		{"bad box third", frame(all[1], all[2], &Envelope{Kind: ReadReqs, Reads: []matcher.Read{{Box: matcher.Box{Start: []int64{0}, Count: []int64{-1}}}}}), nil},
		{"garbage after", append(frame(all[0]), 0xc1), nil},
	}
	for _, c := range cases {
		got, err := DecodeFrame(c.b)
		switch {
		case c.want == nil && err == nil:
			t.Errorf("%s: accepted as %d envelopes", c.name, len(got))
		case c.want != nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != nil && !reflect.DeepEqual(got, c.want):
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func FuzzDecodeFrame(f *testing.F) {
	var all []byte
	for _, m := range sampleEnvelopes() {
		all, _ = m.AppendTo(all)
		b, _ := m.Encode()
		f.Add(b)
	}
	f.Add(all)
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := DecodeFrame(data)
		if err != nil {
			return
		}
		// Whatever decodes must re-encode to a frame of as many envelopes.
		var b []byte
		for _, m := range ms {
			if b, err = m.AppendTo(b); err != nil {
				t.Fatal(err)
			}
		}
		again, err := DecodeFrame(b)
		if err != nil || len(again) != len(ms) {
			t.Fatalf("re-decode: %d envelopes, %v; want %d", len(again), err, len(ms))
		}
	})
}

func FuzzDecodeEnvelope(f *testing.F) {
	for _, m := range sampleEnvelopes() {
		b, _ := m.Encode()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		// Whatever decodes must re-encode and decode to the same message.
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(b); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
	})
}
