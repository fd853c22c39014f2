// Package mpitest runs multi-rank tests under the real mpirun.
//
// A test builds its helper main packages with Build and launches them with
// Run, which adds the flags this platform needs, tags every output line with
// its rank, enforces a timeout by killing the whole job, and fails the test
// with each rank's failure lines. Helper programs report through Fail, Fatal
// and Exit, whose "FAIL rank N: ..." lines the parent recognises.
//
// A package that uses Build should call Main from its TestMain so that the
// built binaries are removed when the test binary exits.
package mpitest
