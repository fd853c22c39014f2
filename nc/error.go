package nc

import (
	"errors"
	"fmt"
)

// Error is a PnetCDF status code (NC_NOERR is 0, errors are negative).
// Its codes and messages equal PnetCDF's, so every backend reports the same
// code for the same bad call.
type Error int

// NOERR is the success status.
const NOERR Error = 0

// Error returns ncmpi_strerror's text for the code.
func (e Error) Error() string {
	if m, ok := messages[e]; ok {
		return m
	}
	return fmt.Sprintf("Unknown Error: Unrecognized error code %d", int(e))
}

// Name returns the NC_ constant name of the code, such as "NC_EBADID".
func (e Error) Name() string {
	if n, ok := names[e]; ok {
		return n
	}
	return fmt.Sprintf("NC_E(%d)", int(e))
}

// detailed is an Error with context (which variable, which box) attached.
type detailed struct {
	code   Error
	detail string
}

func (d *detailed) Error() string { return d.code.Error() + ": " + d.detail }
func (d *detailed) Unwrap() error { return d.code }

// Errorf returns an error carrying code plus a formatted detail; errors.Is(err, code)
// and Code(err) still see the code.
func Errorf(code Error, format string, args ...any) error {
	return &detailed{code: code, detail: fmt.Sprintf(format, args...)}
}

// Code extracts the NC_* code from err: NOERR for nil, EINVAL when err carries no code.
func Code(err error) Error {
	if err == nil {
		return NOERR
	}
	var e Error
	if errors.As(err, &e) {
		return e
	}
	return EINVAL
}
