//go:build !(cgo && amd64)

package blake3

import (
	"hash"

	"github.com/zeebo/blake3"
)

// Impl names the implementation in use, for reports.
const Impl = "pure Go (github.com/zeebo/blake3)"

// New returns a BLAKE3-256 hash.
func New() hash.Hash { return blake3.New() }
