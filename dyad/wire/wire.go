// Package wire is the framing of couplet's file-staging protocol, spoken between a client
// and its node agent (Unix socket) and between agents (TCP, the rpc DTL).
//
// Every message is a frame: a 4-byte big-endian length, then a msgpack-encoded Msg.
// A Chunk message is followed by exactly Msg.N raw bytes of file data, so a file of any
// size streams in bounded chunks without a whole-file buffer.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	codec "github.com/couplet-hpc/couplet/internal/wire"
)

//go:generate go tool msgp -io=false -tests=false

// Op names a message kind.
type Op uint8

// The message kinds.
const (
	OpInvalid Op = iota
	// OpFetch asks an agent for the file Path (relative to its managed directory).
	OpFetch
	// OpHeader starts a fetch reply: Meta.Size bytes follow in chunks.
	OpHeader
	// OpChunk carries N raw bytes after the frame.
	OpChunk
	// OpEnd ends a stream or acknowledges a request.
	OpEnd
	// OpError ends a request with Err.
	OpError
	// OpPublish asks the local agent to publish Meta (client -> agent).
	OpPublish
	// OpLookup asks the agent's node cache for NS/Key.
	OpLookup
	// OpWait asks the agent to read the global KVS for NS/Key, waiting up to TimeoutMs
	// for a version >= MinVersion.
	OpWait
	// OpStage asks the local agent to fetch Meta from its owner into Dest. Without Meta
	// it names the file by NS/Key and MinVersion instead: the agent first locates the
	// record (its cache, else the global KVS, waiting up to WaitMs), so a consume costs
	// one request; its reply says which locator Level found the record, in LocateNs.
	OpStage
	// OpList lists the metadata in NS under Key as a prefix.
	OpList
	// OpMeta carries one metadata record in a reply.
	OpMeta
	// OpStats asks for the agent's counters.
	OpStats
	// OpFetchUCX asks an agent for the file Path over the ucx DTL: the agent puts the
	// file, chunk by chunk, into the consumer's registered window Win.
	OpFetchUCX
	// OpReady says that Len bytes of the file at offset Off are in the next window slot
	// (the put has been flushed).
	OpReady
	// OpAck says that the consumer has taken the chunk at Off out of its slot, which the
	// producer may then fill again.
	OpAck
	opMax
)

var opNames = [...]string{"invalid", "fetch", "header", "chunk", "end", "error", "publish",
	"lookup", "wait", "stage", "list", "meta", "stats", "fetch-ucx", "ready", "ack"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Meta is the metadata published for a produced file.
type Meta struct {
	// Key is the DYAD path key; Path is the path relative to the managed directory.
	Key  string `msgpack:"k"`
	Path string `msgpack:"p"`
	// Owner is the TCP address of the producer's agent; Node names the producer's host.
	Owner string `msgpack:"o"`
	Node  string `msgpack:"n"`
	Size  int64  `msgpack:"s"`
	// Version starts at 1 and grows each time the path is produced again.
	Version int64 `msgpack:"v"`
	// Checksum is the CRC-32C (Castagnoli) of the file's bytes.
	Checksum uint32 `msgpack:"c"`
	// MTimeNs is the producer-side modification time in Unix nanoseconds.
	MTimeNs int64 `msgpack:"t"`
	// Mode is the permission bits of the produced file (0644, ...), which staged copies
	// take; 0 (a record without it) leaves a staged copy at 0600.
	Mode uint32 `msgpack:"m,omitempty"`
	// Hash is the content tag of the file's bytes (salt and MAC, agent/content.go) and
	// Sig the owner agent's HMAC-SHA256 of the record under the cluster key. Both live in
	// the KVS record only: agents strip them from what they tell local clients.
	Hash []byte `msgpack:"h,omitempty"`
	Sig  []byte `msgpack:"g,omitempty"`
}

// Msg is every message of the protocol; each Op uses the fields it needs.
type Msg struct {
	Op         Op               `msgpack:"op"`
	Token      string           `msgpack:"tok,omitempty"`
	NS         string           `msgpack:"ns,omitempty"`
	Key        string           `msgpack:"key,omitempty"`
	Path       string           `msgpack:"path,omitempty"`
	Dest       string           `msgpack:"dest,omitempty"`
	Version    int64            `msgpack:"ver,omitempty"`
	MinVersion int64            `msgpack:"minv,omitempty"`
	TimeoutMs  int64            `msgpack:"tmo,omitempty"`
	N          int64            `msgpack:"n,omitempty"`
	Err        string           `msgpack:"err,omitempty"`
	Found      bool             `msgpack:"found,omitempty"`
	Meta       *Meta            `msgpack:"meta,omitempty"`
	Counters   map[string]int64 `msgpack:"ctr,omitempty"`
	// Win is the consumer's window of an OpFetchUCX.
	Win *Window `msgpack:"win,omitempty"`
	// Puts, in the header of a ucx reply, says that the owner puts the chunks into the
	// window (over the network) rather than reading them into its own mapping of it: the
	// consumer's worker must then progress for them to land.
	Puts bool `msgpack:"puts,omitempty"`
	// Off and Len place a chunk in the file (OpReady, OpAck); int64, so files of any size.
	Off int64 `msgpack:"off,omitempty"`
	Len int64 `msgpack:"len,omitempty"`
	// DTL is the data transport a consumer asks its agent to stage with (OpStage,
	// from DYAD_DTL_MODE); empty means the agent's own.
	DTL string `msgpack:"dtl,omitempty"`
	// WaitMs bounds an OpStage's wait for its record when it names a key, not Meta.
	WaitMs int64 `msgpack:"wait,omitempty"`
	// Level and LocateNs, in the reply to an OpStage that named a key, say which
	// locator level found the record (the agent's cache or the KVS, numbered as
	// dyad.Level) and how long that took.
	Level    uint8 `msgpack:"lvl,omitempty"`
	LocateNs int64 `msgpack:"locns,omitempty"`
}

// Window is memory a consumer's agent registered with UCX for the ucx DTL: Slots slots
// of SlotSize bytes from the remote address Addr, reachable with the packed key Rkey
// through the UCX worker whose address is Worker.
type Window struct {
	Worker   []byte `msgpack:"w"`
	Addr     uint64 `msgpack:"a"`
	Rkey     []byte `msgpack:"k"`
	SlotSize int64  `msgpack:"s"`
	Slots    int64  `msgpack:"n"`
}

// Limits that decoders enforce so a hostile peer cannot make us allocate without bound.
const (
	// MaxFrame is the largest encoded Msg accepted.
	MaxFrame = 64 << 10
	// MaxChunk is the largest chunk payload accepted.
	MaxChunk = 16 << 20
	// MaxSlot and MaxSlots bound a ucx DTL window (4 GiB in all at most).
	MaxSlot  = 256 << 20
	MaxSlots = 16
)

// ErrMalformed is wrapped by every decoding failure of a frame's content.
var ErrMalformed = errors.New("wire: malformed message")

// Write encodes m as one frame on w.
func Write(w io.Writer, m *Msg) error {
	// The body is encoded after room for its length, which is filled in after.
	buf, err := codec.Encode(make([]byte, 4, 4+m.Msgsize()), m)
	if err != nil {
		return fmt.Errorf("wire: encode %v: %w", m.Op, err)
	}
	if n := len(buf) - 4; n > MaxFrame {
		return fmt.Errorf("wire: %v message of %d bytes exceeds %d", m.Op, n, MaxFrame)
	}
	binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
	_, err = w.Write(buf)
	return err
}

// Read decodes one frame from r. It returns io.EOF only when r ends cleanly before a frame.
func Read(r io.Reader) (*Msg, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("wire: truncated frame header: %w", err)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || n > MaxFrame {
		return nil, fmt.Errorf("%w: frame length %d not in 1..%d", ErrMalformed, n, MaxFrame)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("wire: truncated frame of %d bytes: %w", n, err)
	}
	return Decode(body)
}

// Decode decodes and validates a frame body.
func Decode(body []byte) (*Msg, error) {
	var m Msg
	if err := codec.Decode(body, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Validate checks the fields that a receiver relies on.
func (m *Msg) Validate() error {
	switch {
	case m.Op == OpInvalid || m.Op >= opMax:
		return fmt.Errorf("%w: unknown op %d", ErrMalformed, uint8(m.Op))
	case m.Op == OpChunk && (m.N <= 0 || m.N > MaxChunk):
		return fmt.Errorf("%w: chunk length %d not in 1..%d", ErrMalformed, m.N, MaxChunk)
	case m.Op != OpChunk && m.N != 0:
		return fmt.Errorf("%w: %v message carries a payload length", ErrMalformed, m.Op)
	case m.Version < 0 || m.MinVersion < 0 || m.TimeoutMs < 0 || m.WaitMs < 0 || m.LocateNs < 0:
		return fmt.Errorf("%w: negative version or timeout", ErrMalformed)
	case m.Meta != nil && (m.Meta.Size < 0 || m.Meta.Version < 0):
		return fmt.Errorf("%w: negative size or version in metadata", ErrMalformed)
	case m.Off < 0 || m.Len < 0:
		return fmt.Errorf("%w: negative offset or length", ErrMalformed)
	case m.Op == OpReady && (m.Len == 0 || m.Len > MaxSlot):
		return fmt.Errorf("%w: ready chunk length %d not in 1..%d", ErrMalformed, m.Len, MaxSlot)
	case m.Op != OpReady && m.Len != 0:
		return fmt.Errorf("%w: %v message carries a chunk length", ErrMalformed, m.Op)
	case m.Op == OpFetchUCX && m.Win == nil:
		return fmt.Errorf("%w: ucx fetch without a window", ErrMalformed)
	case m.Win != nil:
		return m.Win.validate()
	}
	return nil
}

// validate checks that the window is non-empty, bounded and does not wrap the address space.
func (w *Window) validate() error {
	switch {
	case len(w.Worker) == 0 || len(w.Rkey) == 0:
		return fmt.Errorf("%w: window without a worker address or remote key", ErrMalformed)
	case w.SlotSize <= 0 || w.SlotSize > MaxSlot || w.Slots <= 0 || w.Slots > MaxSlots:
		return fmt.Errorf("%w: window of %d slots of %d bytes (want 1..%d of 1..%d)",
			ErrMalformed, w.Slots, w.SlotSize, MaxSlots, MaxSlot)
	case w.Addr+uint64(w.Slots*w.SlotSize) < w.Addr:
		return fmt.Errorf("%w: window wraps the address space", ErrMalformed)
	}
	return nil
}

// EncodeMeta encodes metadata for the KVS.
func EncodeMeta(m *Meta) ([]byte, error) { return codec.Encode(nil, m) }

// DecodeMeta decodes metadata read from the KVS.
func DecodeMeta(b []byte) (*Meta, error) {
	var m Meta
	if err := codec.Decode(b, &m); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrMalformed, err)
	}
	if m.Size < 0 || m.Version < 0 {
		return nil, fmt.Errorf("%w: metadata: negative size or version", ErrMalformed)
	}
	return &m, nil
}
