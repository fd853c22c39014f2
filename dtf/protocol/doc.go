// Package protocol holds the control messages of dtf's array-coupling protocol, their
// wire encoding, and its three roles as pure state machines, in the manner of etcd's
// raft: the engine hands each role what it receives and carries out what the role
// answers.
//
//   - Writer (one per writer rank and session): EndEpoch ships the epoch's writes to
//     the matchers, or pushes by its replay record; Step takes SCHEDULE and
//     EPOCH_DONE and names the transfers to send; Finish keeps the record.
//   - Reader (one per reader rank and session): StartRound sends a round of reads, or
//     posts its recorded receives at once; Step takes EXPECT and VERDICT and names the
//     receives to post, keep or cancel; EndRound keeps the record and ends the epoch.
//   - Matcher (one per matcher rank): Step takes the requests and answers them
//     (Ready).
//
// Replay (the signatures, the records, hits and misses) and the epoch rules live in
// these roles. They are plain Go over plain data: no MPI, UCX, KVS, clock or
// goroutine (the driver passes wall-clock stamps in as data, and timeouts count
// ticks), so the decoder is fuzzed (FuzzDecode) and the roles are tested by a seeded
// simulation (TestSimulation: writers, readers and matchers of several sessions in
// one process driven as the engine drives them, messages delivered in any order MPI
// allows, ranks killed at any step, patterns changed between cycles; a failing seed
// replays with -seed N, and testdata/sim-seeds keeps those that once failed) and by
// scripted replay cases under many delivery orders (TestReplayScenarios), without a
// launcher.
//
// Three roles exchange these messages for every session of a coupled file (create or
// open to close) and every epoch within it: the writer component's ranks, the
// reader component's ranks, and the matchers (ranks of the writer component that
// own parts of each variable's index space). Data never travels in a control
// message: it moves as blocks on data tags, as the schedules name them. A
// driver sends what one step of its roles has for one peer as one transport
// message, a frame of envelopes back to back (AppendTo, DecodeFrame).
//
//	kind          from -> to                      when, and what it carries
//	HEADER        writer root -> peer component   at each enddef: the header (Round: its version) and the writer group's ranks
//	WRITE_REQS    writer -> matcher               at the writer's epoch end: its writes in the matcher's region
//	READ_REQS     reader -> matcher               each read round: its reads (Final: last round of the epoch, Closing: the file is closed)
//	SCHEDULE      matcher -> writer               the boxes to send, to which reader, on which transfer id
//	EXPECT        matcher -> reader               the boxes that will arrive, what nobody wrote, drains of recorded pushes
//	EPOCH_DONE    matcher -> writer               every reader finished the epoch (Closed: readers that closed the session)
//	FILE_CLOSED   writer root -> reader root      file mode: the file is complete on disk
//	RECS_QUERY    reader -> matcher 0             the record count, once the writers' epoch is complete
//	RECS          matcher 0 -> reader             the record count
//	FORGET        writer root -> peer component   the session ended: drop its header if nobody took it
//	VERDICT       replaying writer -> readers     it matched its replay record and sent by it
//	DONE_MULTIPLE reader -> matcher               the reader is done with the writer's multiple epoch
//
// Multiple epochs (DTF's dtf_transfer_multiple and dtf_complete_multiple): the
// writers' WRITE_REQS carry Multiple, and the matchers' EXPECT tell the readers
// so. Each reader transfer is then a round of the same epoch, which ends only
// when every reader rank sent DONE_MULTIPLE or closed the file. Multiple
// epochs neither record nor replay.
//
// Replay: requests carry Replay when the sender's request signature equals its
// record, and then omit the requests themselves; a matcher that sees every sender
// replay answers from its record, and any mismatch makes the epoch match afresh and
// re-record.
package protocol
