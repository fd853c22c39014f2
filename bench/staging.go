package bench

import (
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/agent"
)

// File-staging systems (cases 4 and 6b). The three dyad systems are pairs of
// in-process agents (a producer with an embedded etcd, a consumer joining
// it) differing only in the consumer's DTL; the two baselines move the same
// bytes without dyad.
const (
	StageRPC    = "rpc"     // dyad agents, rpc DTL (TCP stream of chunks)
	StageUCXSM  = "ucx-sm"  // dyad agents, ucx DTL, UCX_TLS=sm
	StageUCXTCP = "ucx-tcp" // dyad agents, ucx DTL, UCX_TLS=tcp
	StageRawTCP = "tcp"     // raw loopback TCP: sendfile out, io.Copy into a file
	StageCp     = "cp"      // cp(1) from the source file to a new file
	// StageRPCNoHash is the rpc pair with its consumer's content hash switched off for
	// the staging (agent.Agent.SetSkipContentHash): measured in the same rounds as
	// StageRPC, right before or after it, so that their difference is what the hash adds
	// to a staging.
	StageRPCNoHash = "rpc-nohash"
)

// StagingSystems lists every staging system in the order of a round's first turn.
var StagingSystems = []string{StageRPC, StageRPCNoHash, StageRawTCP, StageCp, StageUCXSM, StageUCXTCP}

// stagingOrder is the order in which round rep measures the systems: a shuffle of
// StagingSystems seeded by rep (the warm-up round, 0, keeps their order), with rpc's
// hash-off twin right before or after rpc (at random), so that no system always follows
// the same one. What a staging leaves behind (page cache freed, memory a VM handed back
// to its host) changes the time of the next: with a fixed order, the ucx DTL at 1 GiB
// took 0.49 s after one system and 0.77 s after another, and with the twin always
// second, the hash looked as if it saved time.
func stagingOrder(rep int) []string {
	var units [][]string
	for _, sys := range StagingSystems {
		switch sys {
		case StageRPCNoHash:
		case StageRPC:
			units = append(units, []string{sys, StageRPCNoHash})
		default:
			units = append(units, []string{sys})
		}
	}
	if rep > 0 {
		r := rand.New(rand.NewPCG(uint64(rep), 0))
		r.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
		for _, u := range units {
			if len(u) == 2 && r.IntN(2) == 1 {
				u[0], u[1] = u[1], u[0]
			}
		}
	}
	return slices.Concat(units...)
}

// StagingLabel names a staging system in tables and legends.
var StagingLabel = map[string]string{
	StageRPC:       "dyad rpc DTL (agents)",
	StageRPCNoHash: "dyad rpc DTL, content hash off (measurement only)",
	StageUCXSM:     "dyad ucx DTL, UCX_TLS=sm (agents)",
	StageUCXTCP:    "dyad ucx DTL, UCX_TLS=tcp (agents)",
	StageRawTCP:    "raw loopback TCP (sendfile -> io.Copy)",
	StageCp:        "cp",
}

// StagingPoint is cases 4 and 6b at one file size.
type StagingPoint struct {
	MiB   int64 `json:"mib"`
	Bytes int64 `json:"bytes"`
	Reps  int   `json:"reps"`
	// Launches is how many separate launches measured this point; Seconds
	// and GBps then hold the median of the launch medians with the spread
	// across launches, and LaunchSeconds each launch's own summaries.
	Launches      int                  `json:"launches,omitempty"`
	LaunchSeconds []map[string]Summary `json:"launch_seconds,omitempty"`
	Seconds       map[string]Summary   `json:"seconds"`
	GBps          map[string]Summary   `json:"gb_per_s"`
	// RPCvsTCP and RPCvsCp are rpc-DTL throughput over raw TCP's and cp's
	// (medians of this run); UCXvsRPC is each ucx system's over rpc's.
	RPCvsTCP float64            `json:"rpc_vs_tcp"`
	RPCvsCp  float64            `json:"rpc_vs_cp"`
	UCXvsRPC map[string]float64 `json:"ucx_vs_rpc"`
	// HashSeconds is the time to hash the file alone (from the page cache) with the
	// content tag that records name (agent.ContentMAC), which the rpc DTL's consumer checks
	// while receiving: the cost of that verification if it did not overlap the transfer
	// at all. HashShare is its median over rpc's median.
	HashSeconds Summary `json:"hash_seconds"`
	HashShare   float64 `json:"hash_share"`
	// HashWait is what is left of the consumer's checks after the last byte arrived
	// (agent counter hash_wait_ns per rpc staging): their cost on the staging's critical
	// path. HashWaitShare is its median over rpc's median.
	HashWait      Summary `json:"hash_wait_seconds"`
	HashWaitShare float64 `json:"hash_wait_share"`
	// HashAdded is what the content hash adds to a staging, measured: per round, the rpc
	// staging's time less that of the hash-off variant right after it (StageRPCNoHash).
	// HashAddedShare is its median over rpc's median; the 1 GiB target reads it.
	HashAdded      Summary `json:"hash_added_seconds"`
	HashAddedShare float64 `json:"hash_added_share"`
}

// stageNode is one simulated node: a managed directory, an agent, a client.
type stageNode struct {
	dir    string
	agent  *agent.Agent
	client *dyad.Client
}

// stagePair is a producer node and a consumer node sharing the producer's
// embedded etcd.
type stagePair struct{ prod, cons *stageNode }

func startStageNode(root, name, kvs, tokenFile string, dtl string, tls string) (*stageNode, error) {
	n := &stageNode{dir: filepath.Join(root, name, "managed")}
	sock := filepath.Join(root, name, "agent.sock")
	o := agent.Options{ProducerDir: n.dir, Socket: sock, KVS: kvs, LogWriter: io.Discard, DTL: dtl, UCXTLS: tls,
		EtcdDir: filepath.Join(root, name, "etcd"), TokenFile: tokenFile}
	if err := os.MkdirAll(n.dir, 0o755); err != nil {
		return nil, err
	}
	a, err := agent.Start(o)
	if err != nil {
		return nil, fmt.Errorf("bench: start %s agent: %w", name, err)
	}
	n.agent = a
	n.client, err = dyad.New(dyad.Config{Namespace: "bench", ProducerDir: n.dir, ConsumerDir: n.dir, PathRelative: true,
		KeyDepth: 3, KeyBins: 1024, AgentSocket: sock, Timeout: 30 * time.Second, TransferTimeout: 5 * time.Minute})
	if err != nil {
		a.Close()
		return nil, err
	}
	return n, nil
}

func (n *stageNode) close() {
	if n != nil {
		n.client.Close()
		n.agent.Close()
	}
}

// newStagePair starts a producer and a consumer agent fetching over dtl
// ("rpc" or "ucx", with UCX_TLS=tls).
func newStagePair(root, dtl, tls string) (*stagePair, error) {
	name := dtl + tls
	prod, err := startStageNode(root, name+"-prod", "", "", dtl, tls)
	if err != nil {
		return nil, err
	}
	cons, err := startStageNode(root, name+"-cons", prod.agent.KVSEndpoint(), prod.agent.TokenFile(), dtl, tls)
	if err != nil {
		prod.close()
		return nil, err
	}
	return &stagePair{prod, cons}, nil
}

func (p *stagePair) close() {
	p.cons.close()
	p.prod.close()
}

// writeSource writes n pseudo-random bytes to path and returns their CRC-32C.
func writeSource(path string, n int64) (uint32, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	chunk := make([]byte, 4<<20)
	for i := 0; i+8 <= len(chunk); i += 8 {
		v := rng.Uint64()
		for k := range 8 {
			chunk[i+k] = byte(v >> (8 * k))
		}
	}
	sum := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	w := io.MultiWriter(f, sum)
	for left := n; left > 0; left -= int64(len(chunk)) {
		if _, err := w.Write(chunk[:min(left, int64(len(chunk)))]); err != nil {
			return 0, err
		}
	}
	return sum.Sum32(), f.Close()
}

// checkCopy verifies that path holds n bytes with CRC-32C want.
func checkCopy(path string, n int64, want uint32) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sum := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	got, err := io.Copy(sum, f)
	if err != nil {
		return err
	}
	if got != n || sum.Sum32() != want {
		return fmt.Errorf("bench: %s has %d bytes (crc %08x), want %d (crc %08x)", path, got, sum.Sum32(), n, want)
	}
	return nil
}

// tcpSender serves src to every connection with sendfile (io.Copy from an
// *os.File to a TCP connection), the way a plain file server would.
type tcpSender struct {
	l net.Listener
}

func startTCPSender() (*tcpSender, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &tcpSender{l: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var path string
				if _, err := fmt.Fscanln(c, &path); err != nil {
					return
				}
				if f, err := os.Open(path); err == nil {
					io.Copy(c, f)
					f.Close()
				}
			}()
		}
	}()
	return s, nil
}

// fetch copies src over a new loopback connection into dst (io.Copy: splice
// from the socket into the file where the kernel can).
func (s *tcpSender) fetch(src, dst string) error {
	c, err := net.DialTimeout("tcp", s.l.Addr().String(), 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := fmt.Fprintln(c, src); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, c)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// StagingRun holds the agents and baselines of one harness run.
type StagingRun struct {
	root  string
	pairs map[string]*stagePair
	tcp   *tcpSender
}

// StartStaging starts the three agent pairs (rpc, ucx sm, ucx tcp) and the raw TCP
// sender under a fresh temporary directory. The rpc pair serves StageRPCNoHash too: two
// pairs of agents differed by more than the hash costs (the hash-off pair staged 1 GiB
// slower than the rpc pair with the hash, in two launches of three of a full run), so
// the hash is switched off for the stagings of the same pair instead.
func StartStaging() (*StagingRun, error) {
	root, err := os.MkdirTemp("", "couplet-bench-stage-")
	if err != nil {
		return nil, err
	}
	s := &StagingRun{root: root, pairs: map[string]*stagePair{}}
	for sys, dt := range map[string][2]string{StageRPC: {"rpc", ""}, StageUCXSM: {"ucx", "sm"}, StageUCXTCP: {"ucx", "tcp"}} {
		p, err := newStagePair(root, dt[0], dt[1])
		if err != nil {
			s.Close()
			return nil, err
		}
		s.pairs[sys] = p
	}
	if s.tcp, err = startTCPSender(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the agents and removes every file.
func (s *StagingRun) Close() {
	for _, p := range s.pairs {
		p.close()
	}
	if s.tcp != nil {
		s.tcp.l.Close()
	}
	os.RemoveAll(s.root)
}

// Measure stages a file of mib MiB reps times with every system, after one
// untimed warm-up round; the systems take turns within each round, in an order that
// changes from round to round (stagingOrder). Every
// copy is checked (size and CRC-32C) outside the timed part and removed.
func (s *StagingRun) Measure(mib int64, reps int) (StagingPoint, error) {
	n := mib << 20
	p := StagingPoint{MiB: mib, Bytes: n, Reps: reps, Seconds: map[string]Summary{}, GBps: map[string]Summary{}, UCXvsRPC: map[string]float64{}}
	name := fmt.Sprintf("f%d.bin", mib)
	src := filepath.Join(s.root, "src", name)
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		return p, err
	}
	crc, err := writeSource(src, n)
	if err != nil {
		return p, err
	}
	defer os.Remove(src)
	// Every producer publishes the same bytes: a hard link, not a copy.
	for _, sys := range []string{StageRPC, StageUCXSM, StageUCXTCP} {
		pp := s.pairs[sys].prod
		if err := os.Link(src, filepath.Join(pp.dir, name)); err != nil {
			return p, err
		}
		if _, err := pp.client.Produce(name); err != nil {
			return p, fmt.Errorf("bench: produce %s (%s): %w", name, sys, err)
		}
		defer os.Remove(filepath.Join(pp.dir, name))
	}
	base := filepath.Join(s.root, "baseline")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return p, err
	}
	secs := map[string][]float64{}
	var waits []float64
	for rep := 0; rep <= reps; rep++ {
		for _, sys := range stagingOrder(rep) {
			var dest string
			var op func() error
			switch sys {
			case StageRawTCP:
				dest = filepath.Join(base, "tcp-"+name)
				op = func() error { return s.tcp.fetch(src, dest) }
			case StageCp:
				dest = filepath.Join(base, "cp-"+name)
				op = func() error {
					if out, err := exec.Command("cp", src, dest).CombinedOutput(); err != nil {
						return fmt.Errorf("cp: %v: %s", err, out)
					}
					return nil
				}
			default:
				pair, skip := s.pairs[sys], sys == StageRPCNoHash
				if skip {
					pair = s.pairs[StageRPC]
				}
				cons := pair.cons
				dest = filepath.Join(cons.dir, name)
				op = func() error {
					cons.agent.SetSkipContentHash(skip)
					defer cons.agent.SetSkipContentHash(false)
					got, err := cons.client.Consume(name)
					if err == nil && got != dest {
						err = fmt.Errorf("consumed into %s, want %s", got, dest)
					}
					return err
				}
			}
			os.Remove(dest) // the copy of the last round goes: every round moves the bytes
			var wait0 int64
			if sys == StageRPC {
				wait0 = s.pairs[sys].cons.agent.Counters()["hash_wait_ns"]
			}
			t0 := time.Now()
			if err := op(); err != nil {
				return p, fmt.Errorf("bench: staging %d MiB with %s: %w", mib, sys, err)
			}
			d := time.Since(t0).Seconds()
			if err := checkCopy(dest, n, crc); err != nil {
				return p, fmt.Errorf("bench: staging with %s: %w", sys, err)
			}
			os.Remove(dest)
			if rep > 0 {
				secs[sys] = append(secs[sys], d)
				if sys == StageRPC {
					waits = append(waits, float64(s.pairs[sys].cons.agent.Counters()["hash_wait_ns"]-wait0)*1e-9)
				}
			}
		}
	}
	// One buffer for every timing, faulted in by an untimed first one, as the agent's
	// hashers reuse theirs: the page faults of a fresh buffer are not the hash's cost.
	buf := make([]byte, 128<<10)
	var hs []float64
	for i := range reps + 1 {
		d, err := hashSeconds(src, buf)
		if err != nil {
			return p, err
		}
		if i > 0 {
			hs = append(hs, d)
		}
	}
	p.HashSeconds = Summarize(hs)
	for sys, xs := range secs {
		p.Seconds[sys] = Summarize(xs)
		p.GBps[sys] = p.Seconds[sys].Rate(float64(n)).Scale(1e-9)
	}
	rpc := p.Seconds[StageRPC].Median
	p.RPCvsTCP = p.Seconds[StageRawTCP].Median / rpc
	p.RPCvsCp = p.Seconds[StageCp].Median / rpc
	p.HashShare = p.HashSeconds.Median / rpc
	p.HashWait = Summarize(waits)
	p.HashWaitShare = p.HashWait.Median / rpc
	var added []float64
	for i, on := range secs[StageRPC] {
		added = append(added, on-secs[StageRPCNoHash][i])
	}
	p.HashAdded = Summarize(added)
	p.HashAddedShare = p.HashAdded.Median / rpc
	for _, sys := range []string{StageUCXSM, StageUCXTCP} {
		p.UCXvsRPC[sys] = rpc / p.Seconds[sys].Median
	}
	return p, nil
}

// hashSeconds times the content tag of the file at path, read into buf.
func hashSeconds(path string, buf []byte) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, err
	}
	t0 := time.Now()
	h, err := agent.NewContentMAC("bench", make([]byte, 16))
	if err != nil {
		return 0, err
	}
	// Read in pieces of whole chunks, as the consumer's agent reads a staged file back.
	for {
		k, err := io.ReadFull(f, buf)
		h.Write(buf[:k])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	h.Sum()
	return time.Since(t0).Seconds(), nil
}
