// Package examples holds runnable PnetCDF-style programs (one per directory)
// and the test that runs each under mpirun and validates what it wrote:
//
//	block3d     3-D block-decomposed collective write, read back in another decomposition
//	timeseries  a record variable growing one time step per collective write
//	manyvars    a nonblocking write of many variables completed by one WaitAll
//
// Run one with: mpirun -np 4 go run ./examples/pnetcdf/block3d -o out.nc
package examples
