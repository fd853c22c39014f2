package wire

import (
	"reflect"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

type msg struct {
	Name  string
	Boxes [][]int64
	Data  []byte
	Tags  map[string]int
}

func TestRoundTrip(t *testing.T) {
	in := msg{Name: "T", Boxes: [][]int64{{0, 1}, {2, 3}}, Data: []byte{1, 2, 3}, Tags: map[string]int{"a": 1}}
	b, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out msg
	if err := Unmarshal(b, &out); err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("%v %+v", err, out)
	}
}

func TestRejectsHostileLengths(t *testing.T) {
	cases := map[string][]byte{
		"array32 claims 2^31":  {0xdd, 0x80, 0, 0, 0, 1},
		"map32 claims 2^31":    {0xdf, 0x80, 0, 0, 0, 1, 2},
		"bin32 claims 2^31":    {0xc6, 0x80, 0, 0, 0, 1},
		"truncated str":        {0xa5, 'a', 'b'},
		"nested arrays beyond": {0x91, 0x91, 0xdc, 0xff, 0xff},
		"empty":                {0xc1},
	}
	for name, b := range cases {
		var v any
		if err := Unmarshal(b, &v); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	deep := make([]byte, 0, 200)
	for i := 0; i < 100; i++ {
		deep = append(deep, 0x91)
	}
	deep = append(deep, 0xc0)
	var v any
	if err := Unmarshal(deep, &v); err == nil {
		t.Error("100-deep nesting accepted")
	}
}

// TestDecodeNext reads messages written back to back one at a time, and
// checks each one's declared lengths before decoding it.
func TestDecodeNext(t *testing.T) {
	first, second := []byte{0x92, 0x01, 0xa1, 'x'}, []byte{0xc4, 0x02, 7, 8} // [1, "x"], bin 7 8
	cases := []struct {
		name string
		b    []byte
		want [][]byte // the messages in order; nil: an error at the last
	}{
		{"two", append(append([]byte{}, first...), second...), [][]byte{first, second}},
		{"second cut short", append(append([]byte{}, first...), second[:3]...), nil},
		{"hostile length", []byte{0xdd, 0x80, 0, 0, 0, 1}, nil},
	}
	for _, c := range cases {
		var got [][]byte
		b := c.b
		var err error
		for len(b) > 0 && err == nil {
			var raw msgp.Raw
			if b, err = DecodeNext(b, &raw); err == nil {
				got = append(got, raw)
			}
		}
		switch {
		case c.want == nil && err == nil:
			t.Errorf("%s: accepted as %d messages", c.name, len(got))
		case c.want != nil && (err != nil || !reflect.DeepEqual(got, c.want)):
			t.Errorf("%s: got %x, %v; want %x", c.name, got, err, c.want)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	b, _ := Marshal(msg{Name: "x", Boxes: [][]int64{{1}}, Data: []byte{9}})
	f.Add(b)
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m msg
		_ = Unmarshal(data, &m)
	})
}
