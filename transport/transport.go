package transport

import "context"

// Rank identifies a peer in the transport's rank space: world ranks over
// MPI, ranks of the coupled components as numbered in the KVS over UCX.
type Rank int

// AnySource and AnyTag are wildcards for receives.
const (
	AnySource Rank = -1
	AnyTag    int  = -1
)

// Message is one received message.
type Message struct {
	Source Rank
	Tag    int
	Data   []byte
}

// Pending is an operation in flight. The buffers it uses belong to the
// transport until it completes.
type Pending interface {
	// Test reports, without blocking, whether the operation has completed,
	// with its error.
	Test() (done bool, err error)
	// Wait blocks until completion or until ctx ends (then with an error
	// that names the operation; the operation stays pending).
	Wait(ctx context.Context) error
}

// Transport moves messages and array sub-blocks between ranks. Messages
// from one source with one tag arrive in the order they were sent. Tags
// are non-negative and below 1<<30 so that every implementation can carry
// them. Implementations are safe for use by one goroutine at a time unless
// they document more.
type Transport interface {
	// Rank is this process's rank; Size is the number of ranks.
	Rank() Rank
	Size() int

	// Send delivers data to peer with tag and returns once data may be
	// reused.
	Send(ctx context.Context, to Rank, tag int, data []byte) error
	// Recv waits for a message matching from and tag (either may be a
	// wildcard) and returns it in a new buffer.
	Recv(ctx context.Context, from Rank, tag int) (Message, error)
	// TryRecv is Recv without waiting: ok is false when no matching
	// message has arrived. Progress loops use it.
	TryRecv(from Rank, tag int) (msg Message, ok bool, err error)

	// SendBlock starts delivering b's sub-block to peer; the receiver
	// names the same tag in RecvBlock with a block whose Count and
	// ElemSize are equal. b.Buf must not change until the send completes.
	SendBlock(to Rank, tag int, b Block) (Pending, error)
	// RecvBlock starts receiving a sub-block from peer (no wildcard) into
	// b. Element conversion is the caller's business: bytes arrive as sent.
	RecvBlock(from Rank, tag int, b Block) (Pending, error)

	// Close releases the transport's resources. Pending operations must
	// have completed.
	Close() error
}
