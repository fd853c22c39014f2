package main

import "unsafe"

// sizeOf returns the size of v's type in bytes.
func sizeOf[T any](v T) int { return int(unsafe.Sizeof(v)) }

// asBytes views a slice of fixed-size values as its bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var v T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(v)))
}
