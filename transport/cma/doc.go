// Package cma moves a block between two processes of one node with a single
// copy, by cross-memory attach: the owner of the source buffer describes its
// block (Describe: pid, address, layout) in a small message, and the
// receiver copies the sub-block straight from the owner's memory into its
// own destination with process_vm_readv (Read), row runs on both sides in
// one system call per batch. The usual shared-memory path of MPI copies
// twice (into a shared segment and out of it); this copies once.
//
// When the owner's block lies in memory from Alloc (a shared mapping of a
// memory file, as MPI_Win_allocate_shared gives), the descriptor also names
// that file, and the reader maps it (pidfd_getfd, under the same permission
// check) and copies with plain loads and stores: about twice the speed of
// process_vm_readv, which pins and copies one page at a time in the kernel.
//
// The kernel allows the read when the reader may ptrace the owner: same
// user and a dumpable owner, or CAP_SYS_PTRACE. A refusal (EPERM, or ESRCH
// when the pid means another process here) is reported as ErrRefused so
// that the caller falls back to its two-copy path. NodeKey tells which
// ranks share a node and a pid namespace, the precondition for trying.
//
// The package is plain Go over system calls: no cgo.
package cma
