// Package transport is the interface through which couplet's engines move
// bytes between ranks: small messages (send bytes to a peer, receive them
// with their source and tag) and bulk delivery of one sub-block of an N-d
// C-order array straight from and into the user's buffer.
//
// The package holds only the interface, in the manner of database/sql;
// implementations live apart:
//
//   - transport/mpitransport, for components started by one mpirun:
//     messages are MPI point-to-point calls and blocks move with subarray
//     datatypes, which were measured faster than packing;
//   - transport/ucxtransport, for components launched separately: ranks
//     publish and look up UCX worker addresses in the KVS, and messages and
//     blocks are UCX tagged messages (package ucx is the binding).
//
// Nothing in the interface blocks, so the engine owns the waiting policy:
// it bounds every wait by its timeout and never busy-spins.
package transport
