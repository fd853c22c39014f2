// Package bench is the harness behind `couplet bench` and `make bench`: it
// measures couplet side by side with the alternatives a user has, in one
// run, on the same data, and writes docs/PERFORMANCE.md, PNG plots and a
// JSON file of every number.
//
// Each case repeats its measurements (at least 5 times by default) and
// reports the median with min and max; ratios come from medians of the same
// run. The measured memcpy bandwidth of the machine is the ceiling printed
// in every throughput table. Cases whose engine has not landed are listed as
// missing, never estimated.
//
// Case 1 (array coupling) runs the helper program bench/progs/exchange under
// MPMD mpiruns (the in-memory ways in one, the real files in the next);
// case 2 (matching scaling) runs the matcher package in process; case 3
// (replay on vs off) runs bench/progs/cycles under one MPMD mpirun with
// both modes interleaved; cases 4 and 5 (file staging, locator
// levels) start dyad agents in process; case 6 runs the exchange helper's
// coupled mode as two separate mpiruns over UCX against one MPMD mpirun over
// MPI (6a), and stages over the ucx DTL against rpc (6b).
//
// A run as root turns DAMON's running monitors (kdamond) off for its measurements and
// back on at its end (Options.KeepDAMON, --keep-damon, leaves them on): their sampling
// made random rounds slow on the VM of docs/PERFORMANCE.md, whose Machine table says how.
package bench
