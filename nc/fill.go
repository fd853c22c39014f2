package nc

// Default fill values, equal to PnetCDF's NC_FILL_*.
const (
	FillByte   int8    = -127
	FillChar   Text    = 0
	FillShort  int16   = -32767
	FillInt    int32   = -2147483647
	FillFloat  float32 = 9.9692099683868690e+36
	FillDouble float64 = 9.9692099683868690e+36
	FillUbyte  uint8   = 255
	FillUshort uint16  = 65535
	FillUint   uint32  = 4294967295
	FillInt64  int64   = -9223372036854775806
	FillUint64 uint64  = 18446744073709551614
)

// FillBytes returns one default fill value of t as native-endian bytes.
func FillBytes(t Type) []byte {
	switch t {
	case BYTE:
		return Bytes([]int8{FillByte})
	case CHAR:
		return []byte{byte(FillChar)}
	case SHORT:
		return Bytes([]int16{FillShort})
	case INT:
		return Bytes([]int32{FillInt})
	case FLOAT:
		return Bytes([]float32{FillFloat})
	case DOUBLE:
		return Bytes([]float64{FillDouble})
	case UBYTE:
		return []byte{FillUbyte}
	case USHORT:
		return Bytes([]uint16{FillUshort})
	case UINT:
		return Bytes([]uint32{FillUint})
	case INT64:
		return Bytes([]int64{FillInt64})
	case UINT64:
		return Bytes([]uint64{FillUint64})
	}
	return nil
}
