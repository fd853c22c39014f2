// Package dtf is couplet's array-coupling engine (the DTF model): PnetCDF calls on a
// coupled file become requests; matchers in the writer component pair each read with
// the writes that cover it; writers send the overlapping sub-blocks straight to the
// readers; and replay skips the matching when an epoch repeats the last pattern.
//
// The engine drives the pieces below it: dtf/config (the configuration, no MPI),
// dtf/protocol (the control messages, their wire encoding and a table of their
// kinds), matcher and replay (pure algorithms), and a transport chosen by name from
// those the program links (transport.Register; transport/all links every one).
// Init joins the run, Transfer and TransferAll end an epoch explicitly, and
// Finalize leaves it.
package dtf
