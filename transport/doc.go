// Package transport is the interface through which couplet's engines move
// bytes between ranks: small messages (send bytes to a peer, receive them
// with their source and tag) and bulk delivery of one sub-block of an N-d
// C-order array straight from and into the user's buffer.
//
// The package holds the interface and a registry, in the manner of
// database/sql: implementations live apart, register a name from init
// (Register; a duplicate panics), and the engine opens one by the name in its
// config (Open) without importing any. Programs link the implementations they
// want; transport/all links every one. How the components were started
// (Launch: mpmd or separate) is a setting of its own, apart from the wire;
// transport/rendezvous is the shared KVS rendezvous of separate launches.
// The implementations:
//
//   - transport/mpitransport ("mpi"), for components started by one mpirun:
//     messages are MPI point-to-point calls and blocks move with subarray
//     datatypes, which were measured faster than packing;
//   - transport/ucxtransport ("ucx"), in either launch mode: ranks publish
//     and look up UCX worker addresses in the KVS (transport/rendezvous),
//     and messages and blocks are UCX tagged messages (package ucx is the
//     binding).
//
// Nothing in the interface blocks, so the engine owns the waiting policy:
// it bounds every wait by its timeout and never busy-spins.
package transport
