package mpi

/*
#include "helpers.h"
*/
import "C"

import (
	"reflect"
	"unsafe"
)

// Elem is the set of element types the generic calls move. Each maps to the
// MPI predefined type of the same width and kind, so reductions work.
type Elem interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// elemType returns the MPI predefined datatype for T.
func elemType[T Elem]() C.MPI_Datatype {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int8:
		return C.h_int8()
	case reflect.Uint8:
		return C.h_uint8()
	case reflect.Int16:
		return C.h_int16()
	case reflect.Uint16:
		return C.h_uint16()
	case reflect.Int32:
		return C.h_int32()
	case reflect.Uint32:
		return C.h_uint32()
	case reflect.Int64:
		return C.h_int64()
	case reflect.Uint64:
		return C.h_uint64()
	case reflect.Float32:
		return C.h_float()
	default: // reflect.Float64: the constraint allows nothing else
		return C.h_double()
	}
}

// elemSize returns the size of one T in bytes.
func elemSize[T Elem]() int {
	var v T
	return int(unsafe.Sizeof(v))
}

// bufPtr returns a pointer to the first element of buf, or nil when it is empty
// (MPI accepts a null buffer with a zero count).
func bufPtr[T any](buf []T) unsafe.Pointer {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Pointer(&buf[0])
}
