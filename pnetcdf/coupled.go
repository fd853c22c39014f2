package pnetcdf

import (
	"errors"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
)

// openCoupled opens path through the coupling runtime when the running dtf
// configuration claims it: transfer mode goes to dtf's backend, file mode to
// real files with dtf ordering the reader's open after the writer's close.
// ok is false when path is not coupled.
func openCoupled(comm mpi.Comm, path string, mode int, create bool) (b Backend, h *nc.Header, ok bool, err error) {
	coupled, fmode := dtf.Claims(path)
	if !coupled {
		return nil, nil, false, nil
	}
	if fmode == config.ModeFile {
		s, err := dtf.BeginFileSession(comm, path, create || mode&nc.WRITE != 0)
		if err != nil {
			return nil, nil, true, err
		}
		b, h, err := openDiskFile(comm, path, mode, create)
		if err != nil {
			return nil, nil, true, err
		}
		return &fileMode{Backend: b, Definer: b.(Definer), s: s}, h, true, nil
	}
	if create {
		f, err := dtf.Create(comm, path, mode)
		if err != nil {
			return nil, nil, true, err
		}
		return f, &nc.Header{Format: nc.FormatOfMode(mode)}, true, nil
	}
	f, h, err := dtf.Open(comm, path, mode)
	if err != nil {
		return nil, nil, true, err
	}
	return f, h, true, nil
}

// fileMode is the disk backend of a file coupled in file mode: closing it
// tells the readers the file is complete.
type fileMode struct {
	Backend
	Definer // the disk backend's, which keeps the file's header call by call
	s       *dtf.FileSession
}

// Close closes the file on disk, then ends the dtf session.
func (b *fileMode) Close() error {
	return errors.Join(b.Backend.Close(), b.s.End())
}
