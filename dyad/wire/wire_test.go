package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, m := range []*Msg{
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
	} {
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
