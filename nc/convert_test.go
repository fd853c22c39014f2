package nc

import (
	"math"
	"reflect"
	"testing"
)

func TestConvert(t *testing.T) {
	cases := []struct {
		name string
		dst  Type
		src  any
		want any
		err  Error
	}{
		{"double to float", FLOAT, []float64{1.5, -2.25}, []float32{1.5, -2.25}, NOERR},
		{"double to float overflow", FLOAT, []float64{1e300}, nil, ERANGE},
		{"double inf to float", FLOAT, []float64{math.Inf(1)}, []float32{float32(math.Inf(1))}, NOERR},
		{"int to byte in range", BYTE, []int32{-128, 127}, []int8{-128, 127}, NOERR},
		{"int to byte overflow", BYTE, []int32{128}, nil, ERANGE},
		{"negative to unsigned", UINT, []int64{-1}, nil, ERANGE},
		{"uint64 max to int64", INT64, []uint64{math.MaxUint64}, nil, ERANGE},
		{"uint64 to int64 ok", INT64, []uint64{1 << 62}, []int64{1 << 62}, NOERR},
		{"float to short", SHORT, []float32{3.0, -32768}, []int16{3, -32768}, NOERR},
		{"float to short overflow", SHORT, []float32{32768}, nil, ERANGE},
		{"nan to int", INT, []float64{math.NaN()}, nil, ERANGE},
		{"ushort to ubyte overflow", UBYTE, []uint16{256}, nil, ERANGE},
		{"ubyte to double", DOUBLE, []uint8{255}, []float64{255}, NOERR},
		{"int64 to double", DOUBLE, []int64{-5}, []float64{-5}, NOERR},
		{"char to int", INT, []Text{'a'}, nil, ECHAR},
		{"int to char", CHAR, []int32{97}, nil, ECHAR},
		{"char to char", CHAR, []Text{'a', 'b'}, []Text{'a', 'b'}, NOERR},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, st := asBytes(c.src)
			n := len(src) / st.Size()
			dst := make([]byte, n*c.dst.Size())
			err := Convert(dst, c.dst, src, st)
			if Code(err) != c.err {
				t.Fatalf("err = %v, want %s", err, c.err.Name())
			}
			if c.want != nil {
				want, _ := asBytes(c.want)
				if !reflect.DeepEqual(dst, want) {
					t.Fatalf("got %v want %v", dst, want)
				}
			}
		})
	}
	if err := Convert(make([]byte, 4), FLOAT, make([]byte, 16), DOUBLE); Code(err) != EINVAL {
		t.Fatalf("length mismatch: %v", err)
	}
}

func asBytes(v any) ([]byte, Type) {
	switch s := v.(type) {
	case []int8:
		return Bytes(s), BYTE
	case []Text:
		return Bytes(s), CHAR
	case []int16:
		return Bytes(s), SHORT
	case []int32:
		return Bytes(s), INT
	case []float32:
		return Bytes(s), FLOAT
	case []float64:
		return Bytes(s), DOUBLE
	case []uint8:
		return Bytes(s), UBYTE
	case []uint16:
		return Bytes(s), USHORT
	case []uint32:
		return Bytes(s), UINT
	case []int64:
		return Bytes(s), INT64
	case []uint64:
		return Bytes(s), UINT64
	}
	panic("type")
}

func TestTypes(t *testing.T) {
	sizes := map[Type]int{BYTE: 1, CHAR: 1, SHORT: 2, INT: 4, FLOAT: 4, DOUBLE: 8, UBYTE: 1, USHORT: 2, UINT: 4, INT64: 8, UINT64: 8}
	for _, ty := range AllTypes {
		if ty.Size() != sizes[ty] || len(FillBytes(ty)) != sizes[ty] {
			t.Errorf("%s: size %d fill %d", ty, ty.Size(), len(FillBytes(ty)))
		}
	}
	if TypeOf[Text]() != CHAR || TypeOf[uint8]() != UBYTE || TypeOf[float64]() != DOUBLE || NAT.Valid() || Type(12).Size() != 0 {
		t.Fatal("type mapping")
	}
	vals, err := AttValues[float64](NewAtt("a", []int32{1, 2}))
	if err != nil || !reflect.DeepEqual(vals, []float64{1, 2}) {
		t.Fatalf("AttValues = %v, %v", vals, err)
	}
}
