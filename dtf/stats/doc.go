// Package stats holds dtf's statistics: the record one rank writes for one
// transfer epoch of one file, the JSON-lines file format those records are
// stored in, and their aggregation per file and epoch, which `couplet stats`,
// the demo and the benchmarks print.
//
// The package is plain Go over plain data: no MPI, no clock of its own. The
// engine measures; this package stores and sums.
//
// The times of a record keep apart what a newcomer would otherwise read as one
// number:
//
//   - match_ns: the matcher's work on this rank (box algebra and scheduling):
//     the time of the matcher steps that matched a reader round. Only matcher
//     ranks (writers) have it, and an epoch that replay served has exactly
//     none, because no round was matched.
//   - sched_ns: a reader's wait for its schedules that is not the wait for
//     the writers: the round trip to the matchers and their turn-around.
//   - wait_ns: a reader's wait for the writers to reach the end of the epoch.
//   - transfer_ns: readers: posting receives and receiving the data;
//     writers: the whole end of the epoch, from shipping their writes to the
//     matchers until every reader is served.
//
// Rates are SI: 1 GB/s is 10^9 bytes per second.
package stats
