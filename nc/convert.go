package nc

import (
	"math"
	"unsafe"
)

// Convert converts the elements in src (of type st) into dst (of type dt), both
// native-endian, as PnetCDF converts between a buffer type and a variable type:
// text and numbers never mix (ECHAR); a value that does not fit dt is still
// written (truncated as C would) and the call reports ERANGE once done.
// len(dst)/dt.Size() must equal len(src)/st.Size().
func Convert(dst []byte, dt Type, src []byte, st Type) error {
	if !dt.Valid() || !st.Valid() {
		return EBADTYPE
	}
	if (dt == CHAR) != (st == CHAR) {
		return ECHAR
	}
	if len(dst)/dt.Size() != len(src)/st.Size() {
		return Errorf(EINVAL, "convert: %d %s elements into %d %s elements", len(src)/st.Size(), st, len(dst)/dt.Size(), dt)
	}
	if dt == st {
		copy(dst, src)
		return nil
	}
	var bad bool
	switch st {
	case BYTE:
		bad = convFrom(dst, dt, Elems[int8](src))
	case SHORT:
		bad = convFrom(dst, dt, Elems[int16](src))
	case INT:
		bad = convFrom(dst, dt, Elems[int32](src))
	case FLOAT:
		bad = convFrom(dst, dt, Elems[float32](src))
	case DOUBLE:
		bad = convFrom(dst, dt, Elems[float64](src))
	case UBYTE:
		bad = convFrom(dst, dt, Elems[uint8](src))
	case USHORT:
		bad = convFrom(dst, dt, Elems[uint16](src))
	case UINT:
		bad = convFrom(dst, dt, Elems[uint32](src))
	case INT64:
		bad = convFrom(dst, dt, Elems[int64](src))
	case UINT64:
		bad = convFrom(dst, dt, Elems[uint64](src))
	}
	if bad {
		return ERANGE
	}
	return nil
}

func convFrom[S Numeric](dst []byte, dt Type, src []S) bool {
	switch dt {
	case BYTE:
		return convTo(Elems[int8](dst), src)
	case SHORT:
		return convTo(Elems[int16](dst), src)
	case INT:
		return convTo(Elems[int32](dst), src)
	case FLOAT:
		return convTo(Elems[float32](dst), src)
	case DOUBLE:
		return convTo(Elems[float64](dst), src)
	case UBYTE:
		return convTo(Elems[uint8](dst), src)
	case USHORT:
		return convTo(Elems[uint16](dst), src)
	case UINT:
		return convTo(Elems[uint32](dst), src)
	case INT64:
		return convTo(Elems[int64](dst), src)
	case UINT64:
		return convTo(Elems[uint64](dst), src)
	}
	return false
}

// kind classifies a numeric type for range checks.
type kind int

const (
	kSigned kind = iota
	kUnsigned
	kFloat32
	kFloat64
)

func kindOf[T Numeric]() (kind, int) {
	var z T
	size := int(unsafe.Sizeof(z))
	switch any(z).(type) {
	case float32:
		return kFloat32, size
	case float64:
		return kFloat64, size
	case uint8, uint16, uint32, uint64:
		return kUnsigned, size
	}
	return kSigned, size
}

// convTo converts element-wise and reports whether any value was out of dst's range.
func convTo[D, S Numeric](dst []D, src []S) (bad bool) {
	dk, dsize := kindOf[D]()
	sk, _ := kindOf[S]()
	bits := uint(dsize * 8)
	var maxS int64 = math.MaxInt64
	var maxU uint64 = math.MaxUint64
	var minS int64 = math.MinInt64
	if bits < 64 {
		maxS = 1<<(bits-1) - 1
		minS = -1 << (bits - 1)
		maxU = 1<<bits - 1
	}
	for i, s := range src {
		dst[i] = D(s)
		switch sk {
		case kSigned:
			v := int64(s)
			switch dk {
			case kSigned:
				bad = bad || v < minS || v > maxS
			case kUnsigned:
				bad = bad || v < 0 || uint64(v) > maxU
			}
		case kUnsigned:
			u := uint64(s)
			switch dk {
			case kSigned:
				bad = bad || u > uint64(maxS)
			case kUnsigned:
				bad = bad || u > maxU
			}
		default:
			f := float64(s)
			switch dk {
			case kSigned:
				bad = bad || !(f >= float64(minS) && f < -float64(minS))
			case kUnsigned:
				bad = bad || !(f >= 0 && f < float64(maxU)+1)
			case kFloat32:
				bad = bad || (f > math.MaxFloat32 || f < -math.MaxFloat32) && !math.IsInf(f, 0)
			}
		}
	}
	return bad
}
