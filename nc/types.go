package nc

import "fmt"

// Type is a netCDF external element type (NC_BYTE ... NC_UINT64).
type Type int32

// Element types, with PnetCDF's values.
const (
	NAT    Type = 0
	BYTE   Type = 1
	CHAR   Type = 2
	SHORT  Type = 3
	INT    Type = 4
	FLOAT  Type = 5
	DOUBLE Type = 6
	UBYTE  Type = 7
	USHORT Type = 8
	UINT   Type = 9
	INT64  Type = 10
	UINT64 Type = 11
)

// AllTypes lists every valid element type in code order.
var AllTypes = []Type{BYTE, CHAR, SHORT, INT, FLOAT, DOUBLE, UBYTE, USHORT, UINT, INT64, UINT64}

var typeInfo = [...]struct {
	name string
	size int
}{
	NAT: {"NC_NAT", 0}, BYTE: {"NC_BYTE", 1}, CHAR: {"NC_CHAR", 1}, SHORT: {"NC_SHORT", 2},
	INT: {"NC_INT", 4}, FLOAT: {"NC_FLOAT", 4}, DOUBLE: {"NC_DOUBLE", 8}, UBYTE: {"NC_UBYTE", 1},
	USHORT: {"NC_USHORT", 2}, UINT: {"NC_UINT", 4}, INT64: {"NC_INT64", 8}, UINT64: {"NC_UINT64", 8},
}

// Valid reports whether t is one of the eleven element types.
func (t Type) Valid() bool { return t >= BYTE && t <= UINT64 }

// Size returns the element size in bytes (0 for an invalid type).
func (t Type) Size() int {
	if !t.Valid() {
		return 0
	}
	return typeInfo[t].size
}

// String returns the NC_ name of t.
func (t Type) String() string {
	if t >= 0 && int(t) < len(typeInfo) {
		return typeInfo[t].name
	}
	return fmt.Sprintf("Type(%d)", int32(t))
}

// CDF5Only reports whether t needs the CDF-5 format.
func (t Type) CDF5Only() bool { return t >= UBYTE && t <= UINT64 }

// Text is the Go element type of NC_CHAR data, distinct from uint8 (NC_UBYTE).
type Text byte

// Elem is the set of Go element types that map to netCDF types.
type Elem interface {
	int8 | Text | int16 | int32 | float32 | float64 | uint8 | uint16 | uint32 | int64 | uint64
}

// Numeric is Elem without Text.
type Numeric interface {
	int8 | int16 | int32 | float32 | float64 | uint8 | uint16 | uint32 | int64 | uint64
}

// TypeOf returns the netCDF type that a Go element type maps to.
func TypeOf[T Elem]() Type {
	var z T
	switch any(z).(type) {
	case int8:
		return BYTE
	case Text:
		return CHAR
	case int16:
		return SHORT
	case int32:
		return INT
	case float32:
		return FLOAT
	case float64:
		return DOUBLE
	case uint8:
		return UBYTE
	case uint16:
		return USHORT
	case uint32:
		return UINT
	case int64:
		return INT64
	case uint64:
		return UINT64
	}
	return NAT
}
