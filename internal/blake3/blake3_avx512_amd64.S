//go:build cgo

// The C library's avx512 kernels, as it ships them for x86-64 Unix.
#include "blake3_avx512_x86-64_unix.S"
