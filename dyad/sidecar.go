package dyad

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/couplet-hpc/couplet/dyad/wire"
)

// stateDir is the directory inside a managed directory that holds locks and sidecars.
const stateDir = ".couplet"

// Castagnoli is the CRC-32C table used for file checksums (hardware-accelerated).
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

func sidecarPath(dir, upath string) string {
	return filepath.Join(dir, stateDir, "meta", upath+".meta")
}

func joinManaged(dir, upath string) string { return filepath.Join(dir, filepath.FromSlash(upath)) }

func readSidecar(p string) (*wire.Meta, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return wire.DecodeMeta(b)
}

// checksumFile returns the size and CRC-32C of the file at p. A step, when not nil, is
// told of the bytes read so far.
func checksumFile(p string, step Step) (int64, uint32, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	h := crc32.New(Castagnoli)
	var w io.Writer = h
	if step != nil {
		w = io.MultiWriter(h, &stepWriter{step: step})
	}
	n, err := io.CopyBuffer(w, f, make([]byte, 1<<20))
	if err != nil {
		return 0, 0, fmt.Errorf("checksum %s: %w", p, err)
	}
	return n, h.Sum32(), nil
}
