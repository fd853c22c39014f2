package ntcopy

import "unsafe"

// streams is true where stream uses streaming stores (SSE2, part of every
// amd64 processor).
const streams = true

// stream copies n bytes, a multiple of 64, from src to the 16-byte aligned
// dst with streaming stores.
//
//go:noescape
func stream(dst, src unsafe.Pointer, n uintptr)

// fence is SFENCE.
func fence()
