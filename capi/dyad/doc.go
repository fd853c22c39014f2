// Package dyadlib builds libcouplet-dyad.so, DYAD's open/close interception for
// LD_PRELOAD and DYAD's C client API, from the C sources under src/ and the headers
// under include/ (dyad/core/dyad_ctx.h, dyad/client/dyad_client.h, ...). The library
// is plain C with no runtime of its own, so it survives fork and exec; it speaks the
// staging protocol of dyad/wire to the node agent over its Unix socket.
//
// `make capi` builds it into bin/; tests and the bench build it with Build.
package dyadlib
