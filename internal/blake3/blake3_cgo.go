//go:build cgo && amd64

package blake3

/*
#cgo CFLAGS: -I/usr/share/cargo/registry/blake3-1.3.1/c -O3
#include "blake3.h"
*/
import "C"

import (
	"hash"
	"unsafe"
)

// Impl names the implementation in use, for reports.
const Impl = "C (SIMD chosen at run time, AVX-512 where the CPU has it)"

// hasher is the C library's state: plain bytes, no Go pointers, so the C code may
// work on it in place.
type hasher struct{ c C.blake3_hasher }

// New returns a BLAKE3-256 hash.
func New() hash.Hash {
	h := new(hasher)
	C.blake3_hasher_init(&h.c)
	return h
}

// Write adds p; the C code reads it during the call only and keeps no pointer to it.
func (h *hasher) Write(p []byte) (int, error) {
	if len(p) > 0 {
		C.blake3_hasher_update(&h.c, unsafe.Pointer(unsafe.SliceData(p)), C.size_t(len(p)))
	}
	return len(p), nil
}

// Sum appends the digest of what was written so far to b; h stays usable.
func (h *hasher) Sum(b []byte) []byte {
	var out [Size]byte
	C.blake3_hasher_finalize(&h.c, (*C.uint8_t)(unsafe.Pointer(&out[0])), Size)
	return append(b, out[:]...)
}

// Reset starts over.
func (h *hasher) Reset() { C.blake3_hasher_init(&h.c) }

// Size is the digest length.
func (h *hasher) Size() int { return Size }

// BlockSize is BLAKE3's block size.
func (h *hasher) BlockSize() int { return 64 }
