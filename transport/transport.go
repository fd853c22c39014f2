package transport

// Message is one received control message.
type Message struct {
	Source int // the sender's rank
	Tag    int
	Data   []byte
}

// Pending is an operation in flight. The buffers it uses belong to the
// transport until Test reports it done.
type Pending interface {
	// Test reports, without blocking, whether the operation has completed,
	// with its error. It also advances the transport's progress.
	Test() (done bool, err error)
	// Cancel abandons a pending receive, so its buffer is never written
	// after Cancel returns.
	Cancel() error
}

// Transport moves control messages and array sub-blocks between the ranks
// of all coupled components. Ranks are numbered 0..Size()-1 across the
// components; Components gives each component's ranks in component-rank
// order. Messages from one source with one tag arrive in the order sent.
// Tags are non-negative and at most TagUB. Nothing blocks: callers poll with
// Test and TryRecv and decide themselves how to wait. A Transport is used
// by one goroutine at a time.
type Transport interface {
	Rank() int
	Size() int
	Components() [][]int
	// TagUB is the largest tag the transport carries (MPI_TAG_UB over MPI),
	// the same on every rank.
	TagUB() int

	// Send starts sending data to peer with tag; data must not change
	// until the Pending completes.
	Send(to, tag int, data []byte) (Pending, error)
	// TryRecv returns a control message with tag from any source if one
	// has arrived.
	TryRecv(tag int) (msg Message, ok bool, err error)

	// SendBlock starts delivering b's sub-block to peer; the receiver names
	// the same tag in RecvBlock with a block whose Count and ElemSize are
	// equal. b.Buf must not change until the send completes.
	SendBlock(to, tag int, b Block) (Pending, error)
	// RecvBlock starts receiving a sub-block from peer into b. Bytes
	// arrive as sent: element conversion is the caller's business.
	RecvBlock(from, tag int, b Block) (Pending, error)

	// Close releases the transport once the caller's operations are done.
	Close() error
}
