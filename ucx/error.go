package ucx

/*
#cgo pkg-config: ucx
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
)

// ErrTimeout is wrapped by every wait that ran out of time.
var ErrTimeout = errors.New("timed out")

// ErrClosed is returned when an object is used after Close.
var ErrClosed = errors.New("ucx: use of closed object")

// Error is a failed UCX call: the operation, the ucs_status_t code and
// UCX's own description of it (ucs_status_string).
type Error struct {
	Op     string
	Status int
	Msg    string
}

// Error formats the failure as "ucx: op: UCX message (status)".
func (e *Error) Error() string {
	return fmt.Sprintf("ucx: %s: %s (status %d)", e.Op, e.Msg, e.Status)
}

// Status codes callers may want to test for (values of ucs_status_t).
const (
	StatusCanceled    = int(C.UCS_ERR_CANCELED)
	StatusTruncated   = int(C.UCS_ERR_MESSAGE_TRUNCATED)
	StatusUnreachable = int(C.UCS_ERR_UNREACHABLE)
)

// IsStatus reports whether err is a UCX error with the given status.
func IsStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// statusErr turns a ucs_status_t into nil or an *Error.
func statusErr(op string, st C.ucs_status_t) error {
	if st == C.UCS_OK {
		return nil
	}
	return &Error{Op: op, Status: int(st), Msg: C.GoString(C.ucs_status_string(st))}
}
