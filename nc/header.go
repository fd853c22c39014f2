package nc

import (
	"fmt"
	"slices"

	"github.com/couplet-hpc/couplet/internal/wire"
)

// Dim is a named dimension. Len is UNLIMITED (0) for the record dimension.
type Dim struct {
	Name string `msgpack:"n"`
	Len  int64  `msgpack:"l"`
}

// Att is an attribute: Len elements of Type, stored as native-endian bytes.
type Att struct {
	Name string `msgpack:"n"`
	Type Type   `msgpack:"t"`
	Data []byte `msgpack:"d"`
}

// Len returns the number of elements in the attribute.
func (a Att) Len() int64 {
	if a.Type.Size() == 0 {
		return 0
	}
	return int64(len(a.Data) / a.Type.Size())
}

// Var is a variable: its element type, dimension ids (record dimension first, if any)
// and attributes.
type Var struct {
	Name   string `msgpack:"n"`
	Type   Type   `msgpack:"t"`
	Dims   []int  `msgpack:"d"`
	Atts   []Att  `msgpack:"a,omitempty"`
	NoFill bool   `msgpack:"f,omitempty"`
}

// Header is a file's metadata: what a writer defines and a reader inquires.
type Header struct {
	Format  Format `msgpack:"fmt"`
	Dims    []Dim  `msgpack:"dims"`
	Vars    []Var  `msgpack:"vars"`
	Atts    []Att  `msgpack:"atts,omitempty"`
	NumRecs int64  `msgpack:"nrec"`
}

// DimID returns the id of the named dimension.
func (h *Header) DimID(name string) (int, bool) {
	for i, d := range h.Dims {
		if d.Name == name {
			return i, true
		}
	}
	return -1, false
}

// VarID returns the id of the named variable.
func (h *Header) VarID(name string) (int, bool) {
	for i, v := range h.Vars {
		if v.Name == name {
			return i, true
		}
	}
	return -1, false
}

// UnlimDim returns the id of the record dimension, or -1 if there is none.
func (h *Header) UnlimDim() int {
	for i, d := range h.Dims {
		if d.Len == UNLIMITED {
			return i
		}
	}
	return -1
}

// IsRecordVar reports whether variable v grows along the record dimension.
func (h *Header) IsRecordVar(v int) bool {
	vr := &h.Vars[v]
	return len(vr.Dims) > 0 && h.Dims[vr.Dims[0]].Len == UNLIMITED
}

// Shape returns the current extent of variable v; the record dimension counts NumRecs.
func (h *Header) Shape(v int) []int64 {
	vr := &h.Vars[v]
	s := make([]int64, len(vr.Dims))
	for i, d := range vr.Dims {
		s[i] = h.Dims[d].Len
		if s[i] == UNLIMITED {
			s[i] = h.NumRecs
		}
	}
	return s
}

// AttList returns the attribute list of variable v, or the global ones for GLOBAL.
func (h *Header) AttList(v int) *[]Att {
	if v == GLOBAL {
		return &h.Atts
	}
	return &h.Vars[v].Atts
}

// Clone returns a deep copy of h. Copying field by field, rather than
// through Encode and DecodeHeader, keeps opening a file with hundreds of
// variables cheap: every coupled open and close clones its header.
func (h *Header) Clone() *Header {
	c := &Header{Format: h.Format, Dims: slices.Clone(h.Dims), Atts: cloneAtts(h.Atts), NumRecs: h.NumRecs}
	if h.Vars != nil {
		c.Vars = make([]Var, len(h.Vars))
		for i, v := range h.Vars {
			v.Dims = slices.Clone(v.Dims)
			v.Atts = cloneAtts(v.Atts)
			c.Vars[i] = v
		}
	}
	return c
}

// cloneAtts deep-copies an attribute list.
func cloneAtts(as []Att) []Att {
	if as == nil {
		return nil
	}
	out := make([]Att, len(as))
	for i, a := range as {
		a.Data = slices.Clone(a.Data)
		out[i] = a
	}
	return out
}

// Encode returns the compact msgpack form of h, for shipping to readers.
func (h *Header) Encode() ([]byte, error) { return wire.Marshal(h) }

// DecodeHeader parses and validates an encoded header. Malformed input gives an
// error, never a panic, and never a header that would break later lookups.
func DecodeHeader(b []byte) (*Header, error) {
	var h Header
	if err := wire.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("nc: decode header: %w", err)
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return &h, nil
}

// Validate checks the header's internal consistency: valid types, dimension ids in
// range, the record dimension unique and only first, non-negative lengths.
func (h *Header) Validate() error {
	switch h.Format {
	case FormatClassic, Format64BitOffst, Format64BitData:
	default:
		return Errorf(ENOTNC, "format %d", h.Format)
	}
	if h.NumRecs < 0 {
		return Errorf(EINVAL, "negative record count %d", h.NumRecs)
	}
	unlim := 0
	for _, d := range h.Dims {
		if d.Len < 0 {
			return Errorf(EDIMSIZE, "dimension %q length %d", d.Name, d.Len)
		}
		if d.Len == UNLIMITED {
			unlim++
		}
	}
	if unlim > 1 {
		return Errorf(EUNLIMIT, "%d record dimensions", unlim)
	}
	if err := validAtts(h.Atts); err != nil {
		return err
	}
	for _, v := range h.Vars {
		if !v.Type.Valid() {
			return Errorf(EBADTYPE, "variable %q type %d", v.Name, v.Type)
		}
		for i, d := range v.Dims {
			if d < 0 || d >= len(h.Dims) {
				return Errorf(EBADDIM, "variable %q dimension id %d", v.Name, d)
			}
			if i > 0 && h.Dims[d].Len == UNLIMITED {
				return Errorf(EUNLIMPOS, "variable %q", v.Name)
			}
		}
		if err := validAtts(v.Atts); err != nil {
			return err
		}
	}
	return nil
}

func validAtts(atts []Att) error {
	for _, a := range atts {
		if !a.Type.Valid() {
			return Errorf(EBADTYPE, "attribute %q type %d", a.Name, a.Type)
		}
		if len(a.Data)%a.Type.Size() != 0 {
			return Errorf(EINVAL, "attribute %q: %d bytes is not a whole number of %s", a.Name, len(a.Data), a.Type)
		}
	}
	return nil
}
