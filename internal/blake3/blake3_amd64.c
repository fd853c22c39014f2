//go:build cgo

// The C library's portable code and run-time dispatch, from the Debian package's source.
#include "blake3.c"
#include "blake3_dispatch.c"
#include "blake3_portable.c"
