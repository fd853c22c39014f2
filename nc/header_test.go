package nc

import (
	"errors"
	"reflect"
	"testing"
)

func sampleHeader() *Header {
	return &Header{
		Format: Format64BitData,
		Dims:   []Dim{{"time", UNLIMITED}, {"y", 4}, {"x", 6}},
		Vars: []Var{
			{Name: "T", Type: DOUBLE, Dims: []int{0, 1, 2}, Atts: []Att{TextAtt("units", "K"), NewAtt("valid", []float64{0, 400})}},
			{Name: "mask", Type: UBYTE, Dims: []int{1, 2}, NoFill: true},
			{Name: "scalar", Type: INT64},
		},
		Atts:    []Att{TextAtt("title", "heat"), NewAtt("step", []int32{7})},
		NumRecs: 3,
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	h := sampleHeader()
	b, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	g, err := DecodeHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h, g) {
		t.Fatalf("round trip differs:\n%+v\n%+v", h, g)
	}
	if !reflect.DeepEqual(h, h.Clone()) {
		t.Fatal("clone differs")
	}
}

// TestHeaderCloneIsDeep checks that changing a clone, down to attribute
// bytes, leaves the original alone.
func TestHeaderCloneIsDeep(t *testing.T) {
	h := sampleHeader()
	c := h.Clone()
	c.Dims[1].Len = 99
	c.Vars[0].Dims[0] = 2
	c.Vars[0].Atts[0].Data[0] = 'X'
	c.Atts[1].Data[0] = 0xff
	c.Vars[1].Name = "other"
	if !reflect.DeepEqual(h, sampleHeader()) {
		t.Fatalf("changing the clone changed the original:\n%+v", h)
	}
}

func TestHeaderLookups(t *testing.T) {
	h := sampleHeader()
	if id, ok := h.VarID("mask"); !ok || id != 1 {
		t.Fatalf("VarID(mask) = %d,%v", id, ok)
	}
	if id, ok := h.DimID("x"); !ok || id != 2 {
		t.Fatalf("DimID(x) = %d,%v", id, ok)
	}
	if _, ok := h.VarID("nope"); ok {
		t.Fatal("found a missing variable")
	}
	if h.UnlimDim() != 0 || !h.IsRecordVar(0) || h.IsRecordVar(1) {
		t.Fatal("record dimension misreported")
	}
	if got := h.Shape(0); !reflect.DeepEqual(got, []int64{3, 4, 6}) {
		t.Fatalf("Shape(T) = %v", got)
	}
}

func TestHeaderValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Header)
		want Error
	}{
		{"bad format", func(h *Header) { h.Format = 3 }, ENOTNC},
		{"bad var type", func(h *Header) { h.Vars[0].Type = 12 }, EBADTYPE},
		{"dim id out of range", func(h *Header) { h.Vars[1].Dims[0] = 9 }, EBADDIM},
		{"negative dim id", func(h *Header) { h.Vars[1].Dims[0] = -1 }, EBADDIM},
		{"record dim not first", func(h *Header) { h.Vars[1].Dims = []int{1, 0} }, EUNLIMPOS},
		{"two record dims", func(h *Header) { h.Dims[1].Len = UNLIMITED }, EUNLIMIT},
		{"negative dim", func(h *Header) { h.Dims[2].Len = -4 }, EDIMSIZE},
		{"ragged att", func(h *Header) { h.Atts[1].Data = []byte{1, 2, 3} }, EINVAL},
		{"bad att type", func(h *Header) { h.Vars[0].Atts[0].Type = 0 }, EBADTYPE},
		{"negative records", func(h *Header) { h.NumRecs = -1 }, EINVAL},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := sampleHeader()
			c.mod(h)
			b, err := h.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeHeader(b); Code(err) != c.want {
				t.Fatalf("got %v (%s), want %s", err, Code(err).Name(), c.want.Name())
			}
		})
	}
}

func FuzzDecodeHeader(f *testing.F) {
	b, _ := sampleHeader().Encode()
	f.Add(b)
	f.Add([]byte{})
	f.Add(b[:len(b)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := DecodeHeader(data)
		if err != nil {
			return
		}
		// Anything accepted must be safe to query and must re-encode identically.
		for v := range h.Vars {
			h.Shape(v)
			h.IsRecordVar(v)
		}
		h.UnlimDim()
		b2, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		h2, err := DecodeHeader(b2)
		if err != nil || !reflect.DeepEqual(h, h2) {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

func TestErrorCodesAndStrings(t *testing.T) {
	cases := []struct {
		e    Error
		code int
		name string
		msg  string
	}{
		{EBADID, -33, "NC_EBADID", "NetCDF: Not a valid ID"},
		{EINVAL, -36, "NC_EINVAL", "NetCDF: Invalid argument"},
		{EPERM, -37, "NC_EPERM", "NetCDF: Write to read only"},
		{ENOTINDEFINE, -38, "NC_ENOTINDEFINE", "NetCDF: Operation not allowed in data mode"},
		{EINDEFINE, -39, "NC_EINDEFINE", "NetCDF: Operation not allowed in define mode"},
		{EINVALCOORDS, -40, "NC_EINVALCOORDS", "NetCDF: Index exceeds dimension bound"},
		{ENOTATT, -43, "NC_ENOTATT", "NetCDF: Attribute not found"},
		{EBADDIM, -46, "NC_EBADDIM", "NetCDF: Invalid dimension ID or name"},
		{ENOTVAR, -49, "NC_ENOTVAR", "NetCDF: Variable not found"},
		{ECHAR, -56, "NC_ECHAR", "NetCDF: Attempt to convert between text & numbers"},
		{EEDGE, -57, "NC_EEDGE", "NetCDF: Start+count exceeds dimension bound"},
		{ESTRIDE, -58, "NC_ESTRIDE", "NetCDF: Illegal stride"},
		{ERANGE, -60, "NC_ERANGE", "NetCDF: Numeric conversion not representable"},
		{ENOTINDEP, -202, "NC_ENOTINDEP", "Operation not allowed in collective data mode"},
		{EINDEP, -203, "NC_EINDEP", "Operation not allowed in independent data mode"},
		{EINVAL_REQUEST, -212, "NC_EINVAL_REQUEST", "Invalid nonblocking request ID."},
		{EINSUFFBUF, -219, "NC_EINSUFFBUF", "Attached buffer is too small."},
		{ENOTENABLED, -222, "NC_ENOTENABLED", "Feature is not enabled at configure time."},
		{ENULLSTART, -226, "NC_ENULLSTART", "Argument start is a NULL pointer"},
		{ENOTRECVAR, -233, "NC_ENOTRECVAR", "Attempting operation only for record variables"},
		{EPENDING, -236, "NC_EPENDING", "Pending nonblocking request is found at file close"},
	}
	for _, c := range cases {
		if int(c.e) != c.code || c.e.Name() != c.name || c.e.Error() != c.msg {
			t.Errorf("%s: got %d %q %q", c.name, int(c.e), c.e.Name(), c.e.Error())
		}
	}
	wrapped := Errorf(EEDGE, "var %q", "T")
	if !errors.Is(wrapped, EEDGE) || Code(wrapped) != EEDGE || Code(nil) != NOERR || Code(errors.New("x")) != EINVAL {
		t.Fatalf("wrapping lost the code: %v", wrapped)
	}
	if Error(-9999).Error() == "" || Error(-9999).Name() == "" {
		t.Fatal("unknown code has no text")
	}
}
