package bench

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/ucx"
)

// TargetStagingVsTCP is the file-staging target: rpc-DTL throughput at
// least this fraction of raw loopback TCP's.
const TargetStagingVsTCP = 0.8

// Targets of the performance issue beyond case 1's.
const (
	// TargetSingleCopyVsMPI: single-copy coupling on one node over raw
	// two-copy MPI, at 256 MiB and more.
	TargetSingleCopyVsMPI = 1.3
	// TargetSingleCopyVsMemcpy: single-copy coupling throughput over the
	// machine's memcpy bandwidth.
	TargetSingleCopyVsMemcpy = 0.5
	// TargetUCXSMvsMPI: coupling over UCX shared memory over coupling over MPI.
	TargetUCXSMvsMPI = 0.9
	// TargetUCXTCPvsRawTCP: coupling over UCX tcp over raw MPI over tcp.
	TargetUCXTCPvsRawTCP = 0.9
	// TargetUCXDTLvsRPC: ucx DTL over rpc DTL staging, at 16 MiB and more.
	TargetUCXDTLvsRPC = 1.0
	// TargetStage1MiBSeconds bounds the staging of a 1 MiB file.
	TargetStage1MiBSeconds = 0.002
	// TargetHashShare bounds the content hash's cost at 1 GiB as a share of the rpc
	// staging time, read from the measured added time: the rpc staging less the
	// hash-off variant in the same rounds.
	TargetHashShare = 0.10
)

func writeReplay(w io.Writer, r *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	x := r.Replay
	if x == nil {
		return
	}
	wl := x.Workload
	p("One MPMD launch, `mpirun -np %d cycles : -np %d cycles` (`bench/progs/cycles`). Every cycle the writers", Writers, Readers)
	p("create a new coupled file holding %d float64 variables of %dx%dx%d (%.0f MiB per cycle); each writer", wl.NVars, wl.NZ, wl.NY, wl.NX, float64(x.Bytes)/(1<<20))
	p("holds a slab along y and puts each variable in %d pieces along z, each reader holds a slab along x and", wl.WBlocks)
	p("gets each variable one z-plane at a time: %d puts and %d gets per cycle to match. Both then call", x.Writes, x.Reads)
	p("`dtf.Transfer` and close. Cycles alternate between `on_cycle_*.nc` (a `[FILE]` section with")
	p("`replay_io = 1`) and `off_cycle_*.nc` (identical but `replay_io = 0`), so both modes run in the same")
	p("launch, taking turns. Each cycle is timed between world barriers (create/open to close) and every")
	p("value is checked. Cycle 0 of each mode records and is left out: %d cycles per mode are measured.", x.Measured)
	p("Match and transfer times come from dtf's statistics (`stats_path`), slowest rank per cycle: *match*")
	p("is the matchers' box algebra and scheduling (none when replay served the cycle; the readers' waits")
	p("for schedules and for the writers are not in it), *transfer* the readers' receiving of the data.")
	p("Replay outcomes are counted per rank and cycle over the measured cycles.")
	p("")
	p("| Replay | cycles | cycle time (s) | match (s) | transfer (s) | writer hits / misses | reader hits / misses |")
	p("|---|---:|---:|---:|---:|---:|---:|")
	for _, m := range ReplayModes {
		p("| %s | %d | %s | %s | %s | %d / %d | %d / %d |", m, x.Seconds[m].N, x.Seconds[m].Format("%.4f"), x.Match[m].Format("%.4f"),
			x.Transfer[m].Format("%.4f"), x.Hits[m+"/writer"], x.Misses[m+"/writer"], x.Hits[m+"/reader"], x.Misses[m+"/reader"])
	}
	p("")
	p("Cycle time off / on: **%.2f** (> 1: replay is faster); match time off / on: %.2f.", x.OffVsOn, ratio(x.Match[ReplayOff].Median, x.Match[ReplayOn].Median))
	if x.Misses[ReplayOn+"/reader"] > 0 {
		p("")
		p("Readers **missed** replay in %d of %d rank-cycles with replay on: a reader whose signature differs", x.Misses[ReplayOn+"/reader"], x.Misses[ReplayOn+"/reader"]+x.Hits[ReplayOn+"/reader"])
		p("from its record matches afresh, so replay saves little here. The signature hashes the reader's")
		p("pending requests in the order `dtf` collects them, and that order comes from a Go map, so it")
		p("changes from cycle to cycle whenever a reader has more than one request (reported to the lead).")
	}
	p("")
}

func writeStaging(w io.Writer, r *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("In process: a producer agent with an embedded etcd and a consumer agent joining it (`dyad/agent`,")
	p("`rpc` DTL), each with its managed directory under `%s`; the producer's client publishes a file", r.Machine.TmpDir)
	p("(`Produce`) and the consumer's client stages it (`Consume`, timed). The baselines move the same")
	p("bytes from the same source file: a raw loopback TCP connection (the server `io.Copy`s the file to")
	p("the socket, sendfile; the client `io.Copy`s the socket into a new file, splice), and `cp` to a")
	p("new file. The copy of the previous round is removed before each timed round (so every round moves")
	p("the bytes) and every copy is checked afterwards (size and CRC-32C). Systems take turns within each")
	p("round after an untimed warm-up round, in an order shuffled afresh for every round (the hash-off")
	p("pair below right before or after rpc, at random), so that no system always follows the same one:")
	p("what a staging leaves behind changes the next one's time. Page cache warm, not dropped; files are")
	p("pseudo-random bytes. Files under %d MiB run as many more rounds as move the bytes of the", smallStageMiB)
	p("repetitions asked for at %d MiB (\"launches x reps\" gives the count): a staging of 1 MiB takes a", smallStageMiB)
	p("millisecond or two, and one of 16 MiB a few, which a few thread wake-ups move by tens of percent on")
	p("a busy 2-core machine.")
	p("")
	p("The dyad rows run with authentication on: the agents prove they hold the cluster token by")
	p("challenge-response on every connection, every record is signed, and the consumer verifies the")
	p("record's signature before the transfer and the content's tag (a chunked GMAC, each chunk tagged")
	p("beside the transfer once it arrived, by the rpc DTL on as many cores as are free) after it.")
	p("Fetches from one owner reuse an")
	p("authenticated connection (each connection authenticates once), over which an owner sends to an")
	p("agent on its own host with reno, where raw TCP keeps the system's default congestion control")
	p("(%s here; see the Machine table): on a reused loopback connection bbr ran at times at half", orDash(r.Machine.TCPCC))
	p("speed for whole launches (`dyad/agent/sender.go`). In the same rounds, right before or after")
	p("each rpc staging, the same rpc pair stages the same file again with its consumer's content hash")
	p("switched off (%s, an agent setting for this measurement only): the difference is what the hash", StageRPCNoHash)
	p("adds. A second pair with the hash off differed from the first by more than that: the hash-off")
	p("pair staged 1 GiB slower than the rpc pair with the hash in two launches of three of a full run.")
	p("")
	p("Throughput in GB/s, median (min–max); the memcpy column is the machine's ceiling.")
	p("")
	p("| Size | launches x reps | memcpy ceiling | %s | %s | %s | rpc / raw TCP | rpc, hash off / raw TCP | rpc / cp |", StagingLabel[StageRPC], StagingLabel[StageRawTCP], StagingLabel[StageCp])
	p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range r.Staging {
		p("| %s | %s | %.2f | %s | %s | %s | %.2f | %.2f | %.2f |", mibLabel(s.MiB), launchReps(s.Launches, s.Reps), r.Memcpy.Median, s.GBps[StageRPC].Format("%.2f"),
			s.GBps[StageRawTCP].Format("%.2f"), s.GBps[StageCp].Format("%.2f"), s.RPCvsTCP,
			ratio(s.Seconds[StageRawTCP].Median, s.Seconds[StageRPCNoHash].Median), s.RPCvsCp)
	}
	p("")
	p("*rpc, hash off / raw TCP* is the same ratio for the stagings with the hash off: the rpc DTL's data path")
	p("against raw TCP's, without the content check. Beyond raw TCP's, that path reserves the copy's")
	p("space (fallocate) while the owner replies, so that the file system allocates its blocks in one go.")
	p("")
	p("Seconds per file, median (min–max):")
	p("")
	p("| Size | rpc DTL | rpc DTL, hash off | raw TCP | cp | hash added (on - off) | added / rpc | content hash of the file alone | hash alone / rpc | hash left after the last byte | left / rpc |")
	p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range r.Staging {
		p("| %s | %s | %s | %s | %s | %s | %.3f | %s | %.3f | %s | %.3f |", mibLabel(s.MiB), s.Seconds[StageRPC].Format("%.4f"), s.Seconds[StageRPCNoHash].Format("%.4f"),
			s.Seconds[StageRawTCP].Format("%.4f"), s.Seconds[StageCp].Format("%.4f"), s.HashAdded.Format("%.4f"), s.HashAddedShare,
			s.HashSeconds.Format("%.4f"), s.HashShare, s.HashWait.Format("%.4f"), s.HashWaitShare)
	}
	p("")
	p("\"Hash added\" is the hash's measured cost to a staging: per round, the rpc staging's time less")
	p("that of the hash-off staging right before or after it. The Targets table reads it at 1 GiB and")
	p("counts it met when it is below the target in every launch, not only in their median.")
	p("\"Hash alone\" is what hashing the file would cost if it did not overlap the transfer at all, and")
	p("\"left after the last byte\" is what the staging waited for the hash once every byte had arrived.")
	p("")
}

func writeLocator(w io.Writer, r *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	if len(r.Locator) == 0 {
		return
	}
	l0 := r.Locator[0]
	p("In process, on the consumer of the rpc pair of case 4: a 4 KiB file is produced and consumed once,")
	p("so it is found at every level; then `Client.LookupLevel` is timed at each level, %d lookups per", l0.Lookups)
	p("level per repetition (levels take turns; one untimed warm-up repetition). *local* checks the")
	p("complete copy in the managed directory, *agent* asks the node agent's metadata cache over its Unix")
	p("socket, *kvs* reads etcd (embedded in the producer's agent, over loopback gRPC). Each cell is the")
	p("median (min–max) over %d repetitions of that repetition's median (or 90th percentile), in microseconds.", l0.Reps)
	p("")
	p("| Level | lookups per rep | median (µs) | 90th percentile (µs) | step from the level above |")
	p("|---|---:|---:|---:|---:|")
	for i, l := range r.Locator {
		step := "–"
		if i > 0 {
			step = fmt.Sprintf("x %.1f", ratio(l.Median.Median, r.Locator[i-1].Median.Median))
		}
		p("| %s | %d | %s | %s | %s |", l.Level, l.Lookups, l.Median.Format("%.1f"), l.P90.Format("%.1f"), step)
	}
	p("")
}

func writeUCX(w io.Writer, r *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	if len(r.UCXExchange) > 0 {
		p("### 6a. Array coupling over UCX between two launches vs over MPI in one")
		p("")
		p("The workload of case 1 (`bench/progs/exchange`, %d writers -> %d readers, 3-D float64, verified every", Writers, Readers)
		p("round), coupled mode only (`-alone`). Over MPI: one MPMD mpirun, as in case 1. Over UCX: the")
		p("writers and the readers are two separate `mpirun`s, each with its own MPI_COMM_WORLD, started")
		p("together and meeting in an embedded etcd (`transport = ucx`, `kvs`, `COUPLET_COMPONENT`,")
		p("`COUPLET_JOB`), with `UCX_TLS=sm` and with `UCX_TLS=tcp`. There is no common world to put a barrier")
		p("on, so all three systems are timed the same way: each component times every round between barriers")
		p("of its own, and a round lasts from the later of the two starts to the later of the two ends. One")
		p("untimed warm-up round; launch and rendezvous are outside the timing; sizes below the largest run")
		p("more rounds, as in case 1. The writers fill an array for")
		p("odd and one for even rounds before the first round (and the readers clear theirs after checking it),")
		p("so that no writer prepares its next round while the readers still finish this one. The writers'")
		p("arrays come from `cma.Alloc` and every rank has `%s=1`, as in case 1's single-copy way. Over", cma.Env)
		p("MPI the single-copy path is off (`mpitransport.SetSingleCopy(false)`): MPI's two copies, as in case")
		p("1's couplet column. Over UCX with sm, a writer sends each reader a descriptor of its block in place of")
		p("the block, and the reader maps the writer's array and copies the block straight into its rows (rows of")
		p("2 KiB in its slab), then answers (`ucxtransport.Options.SingleCopy`): one copy, where UCX's own path")
		p("took two (its cross-memory put of 4 MiB messages into a buffer, then the unpack into the rows; UCX sm /")
		p("MPI read 0.96 / 0.70 / 0.89 at 64 MiB / 256 MiB / 1 GiB with it in the report of 2026-11-28). Over tcp, which")
		p("stands for ranks on different nodes, single-copy reads are off: the block arrives in messages of 4")
		p("MiB, which UCX, whose rendezvous there arrives as active messages copied out of its receive buffers")
		p("anyway, copies straight into the rows (its iov datatype). Its sockets' send buffer is `UCX_TCP_SNDBUF=%s`", ucx.SendBufferExchange)
		p("(`ucx.SendBufferExchange`): sender and receiver then take turns in smaller pieces, where with 4 MiB one")
		p("progress call of a writer copied megabytes into the kernel and ran for milliseconds, in which the writer")
		p("hosting the matcher answered no reader (UCX tcp / raw MPI tcp read 0.60-0.80 at 64 MiB and 0.73-0.97 at")
		p("256 MiB with 4 MiB in the launches that chose the size).")
		p("")
		p("Throughput in GB/s, median (min–max); the memcpy column is the machine's ceiling.")
		p("")
		p("| Size | launches x reps | memcpy ceiling | %s | %s | %s | %s | UCX sm / MPI | UCX tcp / MPI | UCX tcp / raw MPI tcp |", UCXExchangeLabel[SysCoupledMPI],
			UCXExchangeLabel[SysUCXSM], UCXExchangeLabel[SysUCXTCP], UCXExchangeLabel[SysRawMPITCP])
		p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, e := range r.UCXExchange {
			p("| %s | %s | %.2f | %s | %s | %s | %s | %.2f | %.2f | %.2f |", mibLabel(e.MiB), launchReps(e.Launches, e.Reps), r.Memcpy.Median, e.GBps[SysCoupledMPI].Format("%.2f"),
				e.GBps[SysUCXSM].Format("%.2f"), e.GBps[SysUCXTCP].Format("%.2f"), e.GBps[SysRawMPITCP].Format("%.2f"), e.VsMPI[SysUCXSM], e.VsMPI[SysUCXTCP], e.TCPvsRawTCP)
		}
		p("")
		p("The raw MPI over tcp column is the raw MPI exchange of case 1 (no couplet, world barriers around")
		p("each round) in one MPMD mpirun with `%s`: the same bytes over TCP.", strings.Join(rawMPITCPEnv, " "))
		p("")
	}
	if len(r.Staging) > 0 {
		p("### 6b. File staging over the ucx DTL vs the rpc DTL")
		p("")
		p("The same rounds as case 4 (the rpc column is the same measurement): consumer agents whose DTL is")
		p("`ucx` with `UCX_TLS=sm` and with `UCX_TLS=tcp`. The consumer registers a window of 4 slots of 4 MiB;")
		p("over sm the producer copies each chunk straight into its mapping of the window (read from the file")
		p("for its first 32 MiB, from a mapping of the file after them) and the consumer writes it from there")
		p("into its file, so every byte is copied twice, where the rpc DTL's owner hands its page cache to the")
		p("socket (sendfile) and the consumer splices it into its file, once; over tcp the producer copies each")
		p("chunk into a buffer of its own and puts it into the window. The consumer reserves the copy's space")
		p("first, as in case 4.")
		p("`BenchmarkStagingUCX` (`dyad`) runs both with the content hash off too, which leaves the two data paths.")
		p("")
		p("Throughput in GB/s, median (min–max); the memcpy column is the machine's ceiling.")
		p("")
		p("| Size | launches x reps | memcpy ceiling | %s | %s | %s | ucx sm / rpc | ucx tcp / rpc |", StagingLabel[StageRPC], StagingLabel[StageUCXSM], StagingLabel[StageUCXTCP])
		p("|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, s := range r.Staging {
			p("| %s | %s | %.2f | %s | %s | %s | %.2f | %.2f |", mibLabel(s.MiB), launchReps(s.Launches, s.Reps), r.Memcpy.Median, s.GBps[StageRPC].Format("%.2f"),
				s.GBps[StageUCXSM].Format("%.2f"), s.GBps[StageUCXTCP].Format("%.2f"), s.UCXvsRPC[StageUCXSM], s.UCXvsRPC[StageUCXTCP])
		}
		p("")
	}
}

// target is one row of the Targets table.
type target struct {
	caseID         int
	size, what     string
	want           string
	goal           float64 // the target's number, for the decimals of the launches' range
	measured       string
	met, available bool
}

// targets lists every target of the performance issue that the run's
// cases cover, in the order, each read from the median of launch
// medians. A target whose system is not built is listed as not met.
func targets(r *Results) []target {
	var ts []target
	has := func(id int) bool {
		for _, c := range r.Cases {
			if c.ID == id {
				return c.Status == "measured"
			}
		}
		return false
	}
	ge := func(id int, size, what string, want, got float64) target {
		return target{caseID: id, size: size, what: what, want: fmt.Sprintf(">= %.2f", want), goal: want, measured: ratioText(got, want), met: got >= want, available: true}
	}
	// perLaunch adds to t the range of its ratio, base's time over sys's, within each
	// launch of ls: the verdict reads the ratio of the medians, and the range tells how
	// far a launch alone would have put it.
	perLaunch := func(t target, ls []map[string]Summary, base, sys string) target {
		t.measured += launchRange(ls, base, sys, t.goal)
		return t
	}
	for _, e := range r.Exchange {
		ts = append(ts, perLaunch(ge(CaseArray, mibLabel(e.MiB), "couplet / raw MPI (replay off)", TargetVsMPI, e.CoupledVsMPI), e.LaunchSeconds, ModeMPI, ModeCoupled))
	}
	// vsMPI is the case-1 row of got, mode's throughput over raw MPI's at e, or the row
	// saying that e has no rounds of mode.
	vsMPI := func(e ExchangePoint, what string, want float64, mode string, got float64) target {
		if _, ok := e.Seconds[mode]; !ok {
			return target{caseID: CaseArray, size: mibLabel(e.MiB), what: what, want: fmt.Sprintf(">= %.2f", want), measured: "not measured in this run"}
		}
		return perLaunch(ge(CaseArray, mibLabel(e.MiB), what, want, got), e.LaunchSeconds, ModeMPI, mode)
	}
	for _, e := range r.Exchange {
		ts = append(ts, vsMPI(e, "couplet / raw MPI (replay on)", TargetVsMPI, ModeReplay, e.ReplayVsMPI))
	}
	if has(CaseArray) {
		for _, e := range r.Exchange {
			if e.MiB < 256 {
				continue
			}
			t := vsMPI(e, "single-copy on one node / raw MPI", TargetSingleCopyVsMPI, ModeSingle, e.SingleVsMPI)
			ts = append(ts, t)
			if !t.available {
				continue
			}
			ts = append(ts, ge(CaseArray, mibLabel(e.MiB), "single-copy on one node / memcpy", TargetSingleCopyVsMemcpy,
				ratio(e.GBps[ModeSingle].Median, r.Memcpy.Median)))
		}
	}
	for _, e := range r.Exchange {
		ts = append(ts, perLaunch(ge(CaseArray, mibLabel(e.MiB), "couplet / PnetCDF files", TargetVsFile, e.CoupledVsFile), e.LaunchSeconds, ModeFile, ModeCoupled))
	}
	for _, m := range r.Matching {
		if m.Matchers == 1 && m.Boxes >= 1000000 {
			ts = append(ts, target{caseID: CaseMatching, size: fmt.Sprintf("%d x %d boxes", m.Boxes, m.Boxes), what: "one matcher's time on one core",
				want: fmt.Sprintf("< %.1f s", TargetMatchSeconds), measured: fmt.Sprintf("%.3f s (CPU %.3f s)", m.Critical.Median, m.CriticalCPU.Median),
				met: m.Critical.Median < TargetMatchSeconds, available: true})
		}
	}
	for _, u := range r.UCXExchange {
		ts = append(ts, perLaunch(ge(CaseUCX, mibLabel(u.MiB), "UCX sm / couplet over MPI", TargetUCXSMvsMPI, u.VsMPI[SysUCXSM]), u.LaunchSeconds, SysCoupledMPI, SysUCXSM))
	}
	for _, u := range r.UCXExchange {
		if _, ok := u.Seconds[SysRawMPITCP]; ok {
			ts = append(ts, perLaunch(ge(CaseUCX, mibLabel(u.MiB), "UCX tcp / raw MPI over tcp", TargetUCXTCPvsRawTCP, u.TCPvsRawTCP), u.LaunchSeconds, SysRawMPITCP, SysUCXTCP))
		}
	}
	for _, s := range r.Staging {
		ts = append(ts, perLaunch(ge(CaseStaging, mibLabel(s.MiB), "rpc DTL / raw TCP", TargetStagingVsTCP, s.RPCvsTCP), s.LaunchSeconds, StageRawTCP, StageRPC))
	}
	for _, s := range r.Staging {
		if s.MiB == 1024 {
			_, measured := s.Seconds[StageRPCNoHash]
			// Met when every launch's share is below the target, not only their median.
			greatest, spread := s.HashAddedShare, ""
			if rpc := s.Seconds[StageRPC].Median; s.Launches > 1 {
				greatest = ratio(s.HashAdded.Max, rpc)
				spread = fmt.Sprintf("launches %.3f–%.3f; ", ratio(s.HashAdded.Min, rpc), greatest)
			}
			m := fmt.Sprintf("%.3f (%shash alone: %.3f; left after the last byte: %.3f)", s.HashAddedShare, spread, s.HashShare, s.HashWaitShare)
			if s.HashAddedShare < 0 {
				// Both ways stage on the same agents: the hash costs less than the rounds
				// differ by.
				m += ", below zero: within the rounds' noise"
			}
			ts = append(ts, target{caseID: CaseStaging, size: "1 GiB", what: "content hash's added time (hash on - off) / rpc DTL staging time", want: fmt.Sprintf("< %.2f", TargetHashShare),
				measured: m, met: measured && greatest < TargetHashShare, available: measured})
		}
	}
	for _, s := range r.Staging {
		if s.MiB == 1 {
			t := s.Seconds[StageRPC].Median
			ts = append(ts, target{caseID: CaseStaging, size: "1 MiB", what: "rpc DTL staging time", want: fmt.Sprintf("< %.0f ms", TargetStage1MiBSeconds*1e3),
				measured: fmt.Sprintf("%.2f ms", t*1e3), met: t > 0 && t < TargetStage1MiBSeconds, available: true})
		}
	}
	if has(CaseUCX) {
		for _, s := range r.Staging {
			if s.MiB >= 16 {
				ts = append(ts, perLaunch(ge(CaseUCX, mibLabel(s.MiB), "ucx DTL (sm) / rpc DTL", TargetUCXDTLvsRPC, s.UCXvsRPC[StageUCXSM]), s.LaunchSeconds, StageRPC, StageUCXSM))
			}
		}
	}
	return ts
}

// writeTargets lists every target of the run with its verdict.
func writeTargets(w io.Writer, r *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	ts := targets(r)
	if len(ts) == 0 {
		return
	}
	met := 0
	for _, t := range ts {
		if t.met {
			met++
		}
	}
	p("## Targets")
	p("")
	p("Each ratio is taken between medians of launch medians (see each case for the spread across")
	p("launches), and printed with as many decimals as it takes to show on which side of its target it")
	p("falls; \"launches\" gives the least and greatest of the same ratio taken within one launch, printed")
	p("the same way. %d of %d targets met.", met, len(ts))
	p("")
	p("| Case | Size | Ratio | Target | Measured |")
	p("|---:|---:|---|---:|---:|")
	for _, t := range ts {
		v := verdict(t.met)
		if !t.available {
			v = "(**not met**: not measured)"
		}
		p("| %d | %s | %s | %s | %s %s |", t.caseID, t.size, t.what, t.want, t.measured, v)
	}
	p("")
}

// ratioText prints the ratio got with two decimals, or with as many more as it takes for
// the printed number to fall on the same side of the target want as got does (all it
// has, past five): 0.8996 against 0.90 reads 0.8996, not 0.90.
func ratioText(got, want float64) string {
	for d := 2; d < 6; d++ {
		s := strconv.FormatFloat(got, 'f', d, 64)
		if v, _ := strconv.ParseFloat(s, 64); (v >= want) == (got >= want) {
			return s
		}
	}
	return strconv.FormatFloat(got, 'f', -1, 64)
}

// launchRange prints, for more than one launch in ls, the least and greatest ratio of
// base's median time to sys's within a launch, each with the decimals that show on which
// side of want it falls (ratioText); nothing when a launch lacks either.
func launchRange(ls []map[string]Summary, base, sys string, want float64) string {
	if len(ls) < 2 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		b, okb := l[base]
		x, oks := l[sys]
		if !okb || !oks || x.Median <= 0 {
			return ""
		}
		v := b.Median / x.Median
		lo, hi = min(lo, v), max(hi, v)
	}
	return fmt.Sprintf(" (launches %s–%s)", ratioText(lo, want), ratioText(hi, want))
}

// mibLabel prints a size in MiB, as GiB from 1024 up.
func mibLabel(mib int64) string {
	if mib >= 1024 && mib%1024 == 0 {
		return fmt.Sprintf("%d GiB", mib/1024)
	}
	return fmt.Sprintf("%d MiB", mib)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// loadLine describes the machine's load around the run.
func loadLine(r *Results) string {
	if r.LoadStart == "" {
		return ""
	}
	return fmt.Sprintf("%s at the start, %s at the end (1, 5, 15 min; the machine is shared, so other work may have run alongside)",
		r.LoadStart, strings.TrimSpace(r.LoadEnd))
}

// launchReps prints "launches x reps" (one launch when launches is 0).
func launchReps(launches, reps int) string {
	return fmt.Sprintf("%d x %d", max(launches, 1), reps)
}
