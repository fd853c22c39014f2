package dyad

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/couplet-hpc/couplet/dyad/wire"
	"golang.org/x/sys/unix"
)

// stateDir is the directory inside a managed directory that holds locks and sidecars.
const stateDir = ".couplet"

// StagedAttr is the extended attribute in which a staged copy carries the record it was
// staged by (wire.EncodeMeta of the record without its content tag and signature). The
// agent sets it on the temporary file before the rename, so that the copy and its record
// appear in one step, with no second file to create. Where the file system keeps no user
// extended attributes (tmpfs before Linux 6.6, some network file systems) or the record
// does not fit in one, the record goes to the copy's sidecar file instead, written after
// the rename: .couplet/meta/PATH.meta in the managed directory. A copy with neither is
// not a complete staged copy.
const StagedAttr = "user.couplet.meta"

// Castagnoli is the CRC-32C table used for file checksums (hardware-accelerated).
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

func sidecarPath(dir, upath string) string {
	return filepath.Join(dir, stateDir, "meta", upath+".meta")
}

func joinManaged(dir, upath string) string { return filepath.Join(dir, filepath.FromSlash(upath)) }

// ReadStaged returns the record of the staged copy at dest: its StagedAttr, or where it
// has none, the sidecar at side.
func ReadStaged(dest, side string) (*wire.Meta, error) {
	b, err := getAttr(dest, StagedAttr)
	if errors.Is(err, unix.ENOENT) {
		return nil, err // no copy at all
	}
	if err != nil {
		if b, err = os.ReadFile(side); err != nil {
			return nil, err
		}
	}
	return wire.DecodeMeta(b)
}

// SetStagedAttr records b, a staged copy's encoded record, on f, its temporary file.
func SetStagedAttr(f *os.File, b []byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fsetxattr(int(fd), StagedAttr, b, 0) }); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fsetxattr", Path: f.Name(), Err: serr}
	}
	return nil
}

// HasStagedAttr says whether the file at p carries a record in StagedAttr.
func HasStagedAttr(p string) bool {
	_, err := unix.Getxattr(p, StagedAttr, nil)
	return err == nil
}

// DropStaged removes the record of the staged copy at dest, attribute and sidecar, so that
// the copy no longer counts as complete.
func DropStaged(dest, side string) {
	unix.Removexattr(dest, StagedAttr)
	os.Remove(side)
}

// getAttr returns the value of the extended attribute name of the file at p.
func getAttr(p, name string) ([]byte, error) {
	buf := make([]byte, 512)
	for {
		n, err := unix.Getxattr(p, name, buf)
		if err == nil {
			return buf[:n], nil
		}
		if err != unix.ERANGE {
			return nil, &os.PathError{Op: "getxattr", Path: p, Err: err}
		}
		// Longer than buf: ask its size (it may change in between: then ask again).
		if n, err = unix.Getxattr(p, name, nil); err != nil {
			return nil, &os.PathError{Op: "getxattr", Path: p, Err: err}
		}
		buf = make([]byte, n)
	}
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
