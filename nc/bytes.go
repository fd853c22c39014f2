package nc

import "unsafe"

// Bytes views a slice of elements as its native-endian bytes, without copying.
func Bytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// Elems views native-endian bytes as elements of T, without copying. len(b) must be
// a multiple of T's size and b suitably aligned (true for any buffer from Bytes or make).
func Elems[T Elem](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// NewAtt builds an attribute from Go values.
func NewAtt[T Elem](name string, vals []T) Att {
	return Att{Name: name, Type: TypeOf[T](), Data: append([]byte(nil), Bytes(vals)...)}
}

// TextAtt builds an NC_CHAR attribute from a string.
func TextAtt(name, s string) Att {
	return Att{Name: name, Type: CHAR, Data: []byte(s)}
}

// AttValues converts an attribute's values to T, with PnetCDF's ECHAR and ERANGE rules.
func AttValues[T Elem](a Att) ([]T, error) {
	out := make([]T, a.Len())
	return out, Convert(Bytes(out), TypeOf[T](), a.Data, a.Type)
}
