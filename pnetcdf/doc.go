// Package pnetcdf is couplet's user API in the shape of PnetCDF's ncmpi_* calls.
//
// A File validates every call in PnetCDF's check order (closed file, read-only,
// define/data mode, variable id, text/number mismatch, coordinates, edges,
// strides) before its Backend sees it, so every backend reports the same NC_*
// code for the same bad call. Data calls are generic over nc.Elem:
//
//	err := pnetcdf.PutVaraAll(f, varid, start, count, buf) // buf []float64
//
// covers ncmpi_put_vara_double_all; the element type of buf selects the
// memory type, and libpnetcdf converts to the variable's type as C does.
// The disk backend writes real netCDF files (CDF-1, CDF-2, CDF-5) through
// libpnetcdf; dispatch.go picks the backend for each file.
//
// The File owns the header. Define-mode calls edit it here; a backend gets
// the validated header whole at each EndDef (after a Redef, the redefined
// one). Only a Definer backend, whose storage keeps a header of its own (disk:
// libpnetcdf's), also gets each edit as it is made. A coupled file's readers
// receive the writer's header from it: at open the newest one that reached
// them, and a later redefinition after their next get or wait (Follower).
package pnetcdf
