package heatfile

import (
	"os"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/mpi"
)

// Join starts a component. With a coupling config (configPath, or the
// DTF_INI_FILE environment variable) it joins the dtf runtime, which
// initialises MPI and finds the component from MPI_APPNUM, and returns the
// component's communicator. Without one it initialises MPI alone and the
// files are plain files on disk. The returned function finalises what Join
// started. The caller must have locked main to its OS thread.
func Join(configPath string) (mpi.Comm, func() error, error) {
	if configPath == "" && os.Getenv("DTF_INI_FILE") == "" {
		if _, err := mpi.InitThread(mpi.ThreadSingle); err != nil {
			return mpi.Comm{}, nil, err
		}
		return mpi.World(), mpi.Finalize, nil
	}
	if err := dtf.Init(configPath, ""); err != nil {
		return mpi.Comm{}, nil, err
	}
	return dtf.Comm(), dtf.Finalize, nil
}

// TransferCoupled reports whether path is coupled in transfer mode, where an
// explicit epoch (dtf.Transfer) applies.
func TransferCoupled(path string) bool {
	ok, mode := dtf.Claims(path)
	return ok && mode == config.ModeTransfer
}
