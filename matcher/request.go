package matcher

//go:generate go tool msgp -io=false -tests=false
//msgp:tuple Write Read Transfer Uncovered

// Write records that writer Rank put Box of variable Var. Seq orders the
// writes: where writes overlap, the one with the highest Seq wins, as the
// last write to a file does. Ties in Seq are broken by the higher Rank, then
// by the order in which the writes were added (later wins), so the outcome is
// always deterministic.
type Write struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Rank is the writer's rank.
	Rank int
	// Var is the variable id.
	Var int
	// Seq orders overlapping writes: later (higher) wins.
	Seq int64
	// Box is the written hyperslab.
	Box Box
}

// Read records that reader Rank wants Box of variable Var. ID identifies the
// request within the reader so it can match arriving data to its buffer.
type Read struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Rank is the reader's rank.
	Rank int
	// Var is the variable id.
	Var int
	// ID identifies the request on the reader.
	ID int64
	// Box is the requested hyperslab.
	Box Box
}

// Transfer is one scheduled data movement: writer rank Writer sends Box of
// variable Var to reader rank Reader, where it fills part of read ReadID.
// Seq is the sequence number of the write whose data is sent, so the writer
// knows which of its buffers holds the box.
type Transfer struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Writer is the sending rank.
	Writer int
	// Reader is the receiving rank.
	Reader int
	// Var is the variable id.
	Var int
	// ReadID is the reader's request id the box belongs to.
	ReadID int64
	// Seq is the Seq of the write that serves the box.
	Seq int64
	// Box is the hyperslab sent; it lies inside both the read and the write.
	Box Box
}

// Uncovered lists the parts of read ReadID of reader Reader (variable Var)
// that no write covers. The caller reports them as an error naming the
// variable and box, or fills them with the fill value.
type Uncovered struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Reader is the reader's rank.
	Reader int
	// Var is the variable id.
	Var int
	// ReadID is the reader's request id.
	ReadID int64
	// Missing are disjoint, coalesced boxes nobody wrote.
	Missing []Box
}
