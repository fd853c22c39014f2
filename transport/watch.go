package transport

import "time"

// Watcher is implemented by a transport that can watch for control messages
// on a thread of its own, outside the Go scheduler, so that dtf's background
// progress wakes only when one waits instead of polling on a Go timer
// (mpitransport, whose MPI provides MPI_THREAD_MULTIPLE).
type Watcher interface {
	// Watch starts watching for messages with tag from any source: the
	// thread looks after min, backing off to max while none arrives.
	Watch(tag int, min, max time.Duration) (Watch, error)
}

// Watch is a running watch.
type Watch interface {
	// Wait blocks until a message waits, after which the watch stays
	// quiet until Rearm, or until Close (then it returns an error).
	Wait() error
	// Pause stops the looks until Resume, while a caller progresses the
	// transport itself.
	Pause()
	Resume()
	// Rearm lets the watch look again after Wait returned.
	Rearm()
	// Close stops the thread and ends a Wait.
	Close() error
}
