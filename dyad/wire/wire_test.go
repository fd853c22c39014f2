package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	codec "github.com/couplet-hpc/couplet/internal/wire"
)

// sampleMsgs holds a message of every shape the protocol sends.
func sampleMsgs() []*Msg {
	return []*Msg{
		{Op: OpFetch, Token: "t", Path: "a/b", Version: 3},
		{Op: OpChunk, N: 1 << 20},
		{Op: OpHeader, Meta: &Meta{Key: "1.a", Path: "a", Owner: "127.0.0.1:1", Size: 9, Version: 2, Checksum: 7}},
		{Op: OpStats, Counters: map[string]int64{"fetches": 1}},
		{Op: OpError, Err: "nope"},
		{Op: OpFetchUCX, Token: "t", Path: "a", Win: &Window{Worker: []byte{1, 2}, Addr: 1 << 40, Rkey: []byte{3}, SlotSize: 4 << 20, Slots: 4}},
		{Op: OpReady, Off: 1<<32 + 5, Len: 1 << 20},
		{Op: OpAck, Off: 1<<32 + 5},
		{Op: OpStage, NS: "n", Key: "1.a", Path: "/c/.couplet/meta/a", Dest: "/c/a", MinVersion: 2, WaitMs: 60000, TimeoutMs: 600000},
		{Op: OpEnd, Found: true, Meta: &Meta{Key: "1.a", Size: 1}, Level: 2, LocateNs: 12345},
		{Op: OpMeta, Meta: &Meta{Key: "1.a", Path: "a", Node: "n1", Size: 1 << 40, Version: 1 << 33, Checksum: 1<<32 - 1, MTimeNs: -1, Mode: 0o644, Hash: []byte{1, 2}, Sig: []byte{3}}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, m := range sampleMsgs() {
		var b bytes.Buffer
		if err := Write(&b, m); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&b)
		if err != nil {
			t.Fatalf("%v: %v", m.Op, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip %v: got %+v", m.Op, got)
		}
	}
}

// TestReflectionCodecAgrees checks the generated codec against msgpack/v5 by
// reflection, which earlier versions wrote with (metadata records in the KVS
// and on staged copies) and which stands for any other msgpack peer: each reads
// what the other writes.
func TestReflectionCodecAgrees(t *testing.T) {
	for _, m := range sampleMsgs() {
		old, err := codec.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(old)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%v: reflection's encoding decoded to %+v, %v", m.Op, got, err)
		}
		b, err := codec.Encode(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		var back Msg
		if err := codec.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(&back, m) {
			t.Errorf("%v: reflection decoded the encoding to %+v, %v", m.Op, &back, err)
		}
		if m.Meta == nil {
			continue
		}
		if old, err = codec.Marshal(m.Meta); err != nil {
			t.Fatal(err)
		}
		if meta, err := DecodeMeta(old); err != nil || !reflect.DeepEqual(meta, m.Meta) {
			t.Errorf("%v: reflection's metadata record decoded to %+v, %v", m.Op, meta, err)
		}
	}
}

func TestRejects(t *testing.T) {
	for name, frame := range map[string][]byte{
		"zero length": {0, 0, 0, 0},
		"huge length": {0xff, 0xff, 0xff, 0xff},
		"garbage":     {0, 0, 0, 2, 0xc1, 0xc1},
	} {
		if _, err := Read(bytes.NewReader(frame)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	for _, m := range []*Msg{
		{Op: OpChunk, N: 0},
		{Op: OpChunk, N: MaxChunk + 1},
		{Op: OpFetch, N: 5},
		{Op: 200},
		{Op: OpFetch, Version: -1},
		{Op: OpFetchUCX, Path: "a"},
		{Op: OpReady, Off: 1},
		{Op: OpReady, Len: MaxSlot + 1},
		{Op: OpAck, Off: -1},
		{Op: OpAck, Len: 3},
		{Op: OpStage, Key: "k", WaitMs: -1},
		{Op: OpEnd, LocateNs: -1},
		{Op: OpFetchUCX, Win: &Window{Worker: []byte{1}, Rkey: []byte{1}, SlotSize: 0, Slots: 1}},
		{Op: OpFetchUCX, Win: &Window{Worker: []byte{1}, Rkey: []byte{1}, SlotSize: 1, Slots: MaxSlots + 1}},
		{Op: OpFetchUCX, Win: &Window{Rkey: []byte{1}, SlotSize: 1, Slots: 1}},
		{Op: OpFetchUCX, Win: &Window{Worker: []byte{1}, Rkey: []byte{1}, Addr: ^uint64(0) - 10, SlotSize: 100, Slots: 1}},
	} {
		if err := m.Validate(); !errors.Is(err, ErrMalformed) {
			t.Errorf("Validate(%+v) = %v, want ErrMalformed", m, err)
		}
	}
	if _, err := Read(bytes.NewReader([]byte{0, 0})); err == nil {
		t.Error("truncated header accepted")
	}
}
