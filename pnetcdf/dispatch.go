package pnetcdf

import (
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
)

// openBackend is the one place where a file's backend is chosen: files the
// running dtf configuration couples go to the coupling runtime, every other
// file to disk (libpnetcdf). It returns the backend and the file's header
// (empty for a new file).
func openBackend(comm mpi.Comm, path string, mode int, create bool) (Backend, *nc.Header, error) {
	if b, h, ok, err := openCoupled(comm, path, mode, create); ok {
		return b, h, err
	}
	return openDiskFile(comm, path, mode, create)
}

// openDiskFile creates or opens a real file through libpnetcdf.
func openDiskFile(comm mpi.Comm, path string, mode int, create bool) (Backend, *nc.Header, error) {
	if create {
		b, err := createDisk(comm, path, mode)
		if err != nil {
			return nil, nil, err
		}
		return b, &nc.Header{Format: nc.FormatOfMode(mode)}, nil
	}
	return openDisk(comm, path, mode)
}
