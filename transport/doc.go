// Package transport is the interface through which couplet's engines move
// bytes between ranks: small messages (send bytes to a peer, receive them
// with their source and tag) and bulk delivery of one sub-block of an N-d
// C-order array straight from and into the user's buffer.
//
// The package holds only the interface, in the manner of database/sql;
// implementations live apart:
//
//   - transport/mpi, for components started by one mpirun: messages are
//     MPI point-to-point calls and blocks move with subarray datatypes,
//     which were measured faster than packing;
//   - transport/ucx, for components launched separately: ranks publish and
//     look up UCX worker addresses in the KVS, messages are UCX tagged
//     messages and blocks move by tagged send or RMA put from registered
//     memory (package ucx is the binding).
//
// Every call that waits is bounded by its context and ends in an error,
// never a hang, and waiting never busy-spins.
package transport
