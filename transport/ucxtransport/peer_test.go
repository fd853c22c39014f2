package ucxtransport

import (
	"bytes"
	"strings"
	"testing"
)

// TestPeerRecord: a record decodes to what was encoded, and a record that
// is not one (empty, an address alone, another version) is an error.
func TestPeerRecord(t *testing.T) {
	for _, p := range []peer{
		{addr: []byte{1, 2, 3}, node: 42, single: true},
		{addr: []byte{9}, node: 1<<62 + 5},
	} {
		got, err := decodePeer(p.encode())
		if err != nil || !bytes.Equal(got.addr, p.addr) || got.node != p.node || got.single != p.single {
			t.Errorf("decode(encode(%+v)) = %+v, %v", p, got, err)
		}
	}
	good := peer{addr: []byte{7, 7}, node: 3}.encode()
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"header only", good[:recordHeader]},
		{"version 1", append([]byte{1}, good[1:]...)},
		{"version 3", append([]byte{3}, good[1:]...)},
	} {
		if _, err := decodePeer(c.b); err == nil || !strings.Contains(err.Error(), "not version 2") {
			t.Errorf("%s: error %v, want one saying the record is not version 2", c.name, err)
		}
	}
}

// FuzzDecodePeer: any bytes decode to a record or an error, never a panic,
// and a record re-encodes to the same bytes.
func FuzzDecodePeer(f *testing.F) {
	f.Add(peer{addr: []byte{1}, node: 1, single: true}.encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodePeer(b)
		if err != nil {
			return
		}
		if b[1]&^flagSingle == 0 && !bytes.Equal(p.encode(), b) {
			t.Errorf("%x decodes to %+v, which encodes to %x", b, p, p.encode())
		}
	})
}
