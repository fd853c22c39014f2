// Package blake3 is BLAKE3-256, the content hash that signed metadata records name. On
// amd64 with cgo it is a thin binding to the official C implementation as Debian ships
// it (librust-blake3-dev): its AVX-512 code hashes about twice as fast as the pure-Go
// AVX2 one (github.com/zeebo/blake3), which is what every other build uses. Both give
// the same digests.
package blake3

// Size is the length of a digest in bytes.
const Size = 32
