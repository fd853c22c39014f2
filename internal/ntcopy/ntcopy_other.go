//go:build !amd64

package ntcopy

import "unsafe"

// streams is false: other platforms copy with copy.
const streams = false

func stream(dst, src unsafe.Pointer, n uintptr) {
	panic("ntcopy: no streaming stores on this platform")
}

func fence() {}
