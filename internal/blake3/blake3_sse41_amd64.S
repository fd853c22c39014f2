//go:build cgo

// The C library's sse41 kernels, as it ships them for x86-64 Unix.
#include "blake3_sse41_x86-64_unix.S"
