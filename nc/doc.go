// Package nc is the netCDF data model shared by every couplet layer: element
// types, dimensions, variables, attributes, the header (with a compact msgpack
// encoding so writers can ship it to readers) and PnetCDF's NC_* error codes.
// It is the only place these are defined.
package nc
