package wire

import (
	"bytes"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the frame decoder: it must return a message or an
// error, never panic, and whatever it accepts must re-encode and decode to the same op.
func FuzzRead(f *testing.F) {
	for _, m := range []*Msg{
		{Op: OpFetch, Token: "t", Path: "../x"},
		{Op: OpChunk, N: 4},
		{Op: OpHeader, Meta: &Meta{Size: 4, Version: 1}},
		{Op: OpFetchUCX, Path: "a", Win: &Window{Worker: []byte{1}, Addr: 1 << 40, Rkey: []byte{2}, SlotSize: 4 << 20, Slots: 4}},
		{Op: OpReady, Off: 5 << 30, Len: 4 << 20},
		{Op: OpAck, Off: 5 << 30},
	} {
		var b bytes.Buffer
		Write(&b, m)
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := Write(&b, m); err != nil {
			t.Fatalf("accepted message does not re-encode: %v", err)
		}
		m2, err := Read(&b)
		if err != nil || m2.Op != m.Op || m2.N != m.N || m2.Off != m.Off || m2.Len != m.Len {
			t.Fatalf("re-decode: %+v %v", m2, err)
		}
	})
}

// FuzzDecodeMeta feeds arbitrary bytes to the KVS metadata decoder.
func FuzzDecodeMeta(f *testing.F) {
	b, _ := EncodeMeta(&Meta{Key: "1.a", Path: "a", Size: 3, Version: 1})
	f.Add(b)
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMeta(data)
		if err == nil && (m.Size < 0 || m.Version < 0) {
			t.Fatalf("accepted negative fields: %+v", m)
		}
	})
}
