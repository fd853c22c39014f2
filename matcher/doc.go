// Package matcher is the box algebra and request matching at the heart of
// array coupling.
//
// Writers describe what they put as Write records (rank, variable, sequence
// number, box); readers describe what they get as Read records. Match pairs
// every element of every read with exactly one write: the one with the highest
// sequence number that covers it ("last write wins", as in a file). Writes are
// found through a spatial index, never by scanning all of them, and whatever
// part of a read is left after the covering writes is tracked by box
// subtraction, so a read spanning any group of writers is fully served.
// Elements nobody wrote are reported as Uncovered, never silently dropped.
//
// Partition splits each variable's index space among several matchers so
// matching can run distributed; matching the split pieces per matcher yields
// exactly the coverage of global matching.
//
// The package is pure Go over plain data: no MPI, no cgo, no I/O. Its message
// types are plain exported structs that encode compactly with msgpack (they
// carry the `msgpack:",as_array"` struct tag, so field order is the wire
// order).
package matcher
