// Package wire is couplet's msgpack codec for anything that crosses a process
// boundary. Unmarshal rejects inputs whose declared array, map, string or binary
// lengths exceed the bytes present, because msgpack/v5 (v5.4.1) preallocates
// slices of the declared length and a few hostile bytes could demand gigabytes.
package wire

import (
	"bytes"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// maxDepth bounds nesting so a hostile input cannot exhaust the stack.
const maxDepth = 64

// Marshal encodes v with msgpack.
func Marshal(v any) ([]byte, error) { return msgpack.Marshal(v) }

// Unmarshal checks b's declared lengths against its size, then decodes it into v.
func Unmarshal(b []byte, v any) error {
	r := bytes.NewReader(b)
	d := msgpack.NewDecoder(r)
	for r.Len() > 0 {
		if err := scan(d, r, 0); err != nil {
			return err
		}
	}
	return msgpack.Unmarshal(b, v)
}

func scan(d *msgpack.Decoder, r *bytes.Reader, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("wire: nesting deeper than %d", maxDepth)
	}
	c, err := d.PeekCode()
	if err != nil {
		return fmt.Errorf("wire: %w", err)
	}
	switch {
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := d.DecodeArrayLen()
		if err != nil {
			return fmt.Errorf("wire: %w", err)
		}
		if n > r.Len() {
			return fmt.Errorf("wire: array of %d elements in %d bytes", n, r.Len())
		}
		for i := 0; i < n; i++ {
			if err := scan(d, r, depth+1); err != nil {
				return err
			}
		}
		return nil
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := d.DecodeMapLen()
		if err != nil {
			return fmt.Errorf("wire: %w", err)
		}
		if n > r.Len()/2 {
			return fmt.Errorf("wire: map of %d entries in %d bytes", n, r.Len())
		}
		for i := 0; i < 2*n; i++ {
			if err := scan(d, r, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	// Scalars, strings and binaries: Skip reads lengths incrementally and fails at EOF.
	if err := d.Skip(); err != nil {
		return fmt.Errorf("wire: %w", err)
	}
	return nil
}
