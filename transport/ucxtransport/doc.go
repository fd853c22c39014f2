// Package ucxtransport implements transport.Transport over UCX, registered
// as "ucx", for components launched separately (each mpirun has its own
// MPI_COMM_WORLD) or together, which find each other through the KVS.
//
// # Rendezvous
//
// The rendezvous is package transport/rendezvous. Join is collective over each component's own communicator. Every rank
// publishes its UCX worker address under <ns>/<comp>/addr/<rank>; once all
// of them have, the component's rank 0 publishes the component's size under
// <ns>/<comp>/size. Rank 0 of every component then waits (a KVS watch, no
// polling) for the size of every other component and broadcasts the sizes
// to its ranks. Transport ranks are the components' ranks concatenated in
// configuration order. A component that does not register within
// Options.Timeout makes Join fail with an error naming it.
//
// At Join a component's rank 0 first deletes its component's keys left by
// an earlier run under the same namespace, and Close deletes the caller's
// keys. A component that starts after its peer has already read stale keys
// cannot be told apart from a live one, though: the namespace, which
// includes COUPLET_JOB, must be unique per coupled run.
//
// # Messages
//
// Endpoints are created on the first send to a rank, from the address in
// the KVS. A UCX tag carries a kind bit (control message or block), the
// sender's rank and the caller's 31-bit tag, so TryRecv matches any source
// and RecvBlock matches one source exactly. Control messages of unknown
// size are found with a tag probe and received into a buffer of the
// probed size. Blocks are sent in place when their sub-block is contiguous
// in the buffer and packed otherwise (transport.Pack), as a train of
// rendezvous messages of Options.ChunkBytes (4 MiB by default), so blocks
// over 4 GiB work. A receiver whose sub-block is contiguous receives in
// place. Otherwise, over tcp alone, it receives each chunk straight into
// its rows (UCX's iov datatype; Options.RecvRuns): UCX's rendezvous there
// arrives as active messages that it copies out of its receive buffers
// anyway. Elsewhere it keeps a few chunks in flight in staging buffers and
// unpacks each as it lands, while the sender puts the next (UCX's
// rendezvous scheme defaults to put_zcopy: the two copies are shared
// between sender and receiver). Chunks of blocks with the same source and
// tag are told apart by order, so a block receive posts its chunks only
// once the earlier one with the same source and tag has posted all of its
// own. Messages to the caller's own rank never touch UCX.
//
// # Single-copy reads
//
// Every rank publishes a record, not just its worker address: the address,
// its node (cma.NodeKey) and whether it takes single-copy reads
// (Options.SingleCopy: cma.Env set, UCX_TLS not tcp alone). A block of at
// least cma.MinBlock bytes between two ranks of one node that both take
// them moves by one copy: the sender sends a descriptor of its block
// (package cma) as the block's one message, the receiver copies the block
// straight out of the sender's memory into its rows (mapping memory from
// cma.Alloc once, else with process_vm_readv) and answers with a message
// tagged as an answer (a second kind bit), after which the sender may reuse
// its buffer. Both sides decide from the same two records, so they agree
// without asking. When the kernel refuses the read (a peer that is not
// dumpable, a ptrace policy such as Yama's between separate launches), the
// receiver answers so and the block follows through UCX after all, with a
// third kind bit (refusedTag), as MPI's transport falls back to MPI: such
// blocks of one source and tag move in the order they were sent, so the
// sender starts each only once the earlier ones settled how they move, and
// the receiver posts each once the earlier ones did. MPI's transport
// probes every pair at Join instead; this one has no collective step over
// all ranks to agree in advance.
//
// # Errors
//
// Over shared memory UCX 1.13 has no peer failure detection, so the
// default error mode is ucx.ErrModePeer only when UCX_TLS selects tcp
// alone. With ErrModeNone a vanished peer shows up only as operations that
// never complete: the engine's timeouts bound them. Close bounds its own
// flush and endpoint closes, so a gone peer cannot hang it.
package ucxtransport
