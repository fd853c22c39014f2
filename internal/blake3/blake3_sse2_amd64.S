//go:build cgo

// The C library's sse2 kernels, as it ships them for x86-64 Unix.
#include "blake3_sse2_x86-64_unix.S"
