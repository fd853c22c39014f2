// Package frames makes the deterministic "molecular-dynamics frames" of the DYAD
// example, so the consumer can check every byte it receives.
package frames

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Name is the relative path of frame i.
func Name(i int) string { return fmt.Sprintf("md/frame%05d.bin", i) }

// Make returns frame i of the given size: a 16-byte header (frame number, size) then
// pseudo-random positions seeded by the frame number.
func Make(i, size int) []byte {
	b := make([]byte, size)
	r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	for k := 16; k+8 <= size; k += 8 {
		binary.LittleEndian.PutUint64(b[k:], r.Uint64())
	}
	if size >= 16 {
		binary.LittleEndian.PutUint64(b[0:], uint64(i))
		binary.LittleEndian.PutUint64(b[8:], uint64(size))
	}
	return b
}

// Check reports whether b is frame i.
func Check(i int, b []byte) error {
	if len(b) < 16 {
		return fmt.Errorf("frame %d: only %d bytes", i, len(b))
	}
	want := Make(i, int(binary.LittleEndian.Uint64(b[8:])))
	if len(want) != len(b) {
		return fmt.Errorf("frame %d: %d bytes, header says %d", i, len(b), len(want))
	}
	for k := range b {
		if b[k] != want[k] {
			return fmt.Errorf("frame %d: byte %d is %#x, want %#x", i, k, b[k], want[k])
		}
	}
	return nil
}
