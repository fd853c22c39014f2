// Package ucx is a thin cgo binding to UCX's UCP layer (libucp): contexts,
// workers, endpoints built from exchanged worker addresses, memory
// registration with remote keys, RMA put/get, tagged send/receive and flush.
//
// Waiting is event driven: Worker.Wait progresses the worker, arms it
// (ucp_worker_arm) and parks the goroutine in Go's network poller on the
// worker's event fd, so a goroutine waiting for data costs no CPU and holds no
// thread; a worker whose waiter has nothing else to run beside it may sleep in
// ppoll(2) on its thread instead (Worker.SleepInThread), which wakes sooner.
// Every wait has a deadline and ends in an error wrapping ErrTimeout rather
// than hanging.
//
// Nonblocking operations return a *Request. Go memory handed to UCX stays
// pinned (runtime.Pinner) until the request completes, and UCX callbacks only
// set flags in C memory: Go code is never called from a UCX thread.
//
// Which transports UCX uses follows the usual UCX_* environment variables
// (UCX_TLS=tcp, UCX_TLS=sm, ...), which Options.Config can override per context.
package ucx
