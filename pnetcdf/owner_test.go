package pnetcdf

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
)

// handover is a backend that takes the header only at EndDef, as the coupled
// backend does: it records every call it gets and the headers handed to it.
// It stands in for dtf in this unit test of the front end.
type handover struct {
	calls   []string
	headers []*nc.Header
}

func (b *handover) EndDef(h *nc.Header) error {
	b.calls = append(b.calls, "EndDef")
	b.headers = append(b.headers, h)
	return nil
}
func (b *handover) Redef() error                            { b.calls = append(b.calls, "Redef"); return nil }
func (b *handover) BeginIndep() error                       { return nil }
func (b *handover) EndIndep() error                         { return nil }
func (b *handover) Sync() error                             { return nil }
func (b *handover) Put([]nc.Access, bool) error             { return nil }
func (b *handover) Get([]nc.Access, bool) error             { return nil }
func (b *handover) IPut([]nc.Access) (int, error)           { return 0, nil }
func (b *handover) IGet([]nc.Access) (int, error)           { return 0, nil }
func (b *handover) BPut([]nc.Access) (int, error)           { return 0, nil }
func (b *handover) Wait(ids []int, _ bool) ([]error, error) { return make([]error, len(ids)), nil }
func (b *handover) Cancel(ids []int) ([]error, error)       { return make([]error, len(ids)), nil }
func (b *handover) AttachBuffer(int64) error                { return nil }
func (b *handover) DetachBuffer() error                     { return nil }
func (b *handover) BufferUsage() (int64, error)             { return 0, nil }
func (b *handover) NumRecs() (int64, error)                 { return 0, nil }
func (b *handover) Close() error                            { return nil }

// step is one front-end call of a define-mode sequence and the code it must return.
type step struct {
	name string
	call func(f *File) error
	want error
}

func defDim(name string, n int64, want error) step {
	return step{"def_dim " + name, func(f *File) error { _, err := f.DefDim(name, n); return err }, want}
}

func defVar(name string, t nc.Type, dims []int, want error) step {
	return step{"def_var " + name, func(f *File) error { _, err := f.DefVar(name, t, dims); return err }, want}
}

func putText(varid int, name, s string, want error) step {
	return step{"put_att " + name, func(f *File) error { return f.PutAttText(varid, name, s) }, want}
}

func setFill(mode int, want error) step {
	return step{"set_fill", func(f *File) error { _, err := f.SetFill(mode); return err }, want}
}

var (
	endDef = step{"enddef", (*File).EndDef, nil}
	redef  = step{"redef", (*File).Redef, nil}
)

// TestHeaderHandedAtEndDef drives define-mode sequences through the front
// end over a backend that is not a Definer: the front end alone edits the
// header and checks each call in PnetCDF's order; the backend hears nothing
// but EndDef and Redef, and at each EndDef gets exactly the front end's
// header, as a copy of its own.
func TestHeaderHandedAtEndDef(t *testing.T) {
	y := nc.Dim{Name: "y", Len: 4}
	att := func(name, s string) nc.Att { return nc.Att{Name: name, Type: nc.CHAR, Data: []byte(s)} }
	fillT := nc.Att{Name: "_FillValue", Type: nc.DOUBLE, Data: nc.Bytes([]float64{-1})}
	for _, tc := range []struct {
		name    string
		steps   []step
		calls   []string
		headers []*nc.Header // handed at each EndDef
	}{
		{
			name: "define then enddef",
			steps: []step{defDim("y", 4, nil), defVar("T", nc.DOUBLE, []int{0}, nil),
				putText(nc.GLOBAL, "title", "run 1", nil), endDef},
			calls: []string{"EndDef"},
			headers: []*nc.Header{{Format: nc.Format64BitData, Dims: []nc.Dim{y},
				Vars: []nc.Var{{Name: "T", Type: nc.DOUBLE, Dims: []int{0}, NoFill: true}},
				Atts: []nc.Att{att("title", "run 1")}}},
		},
		{
			name: "redef adds, renames, deletes and sets fill",
			steps: []step{defDim("y", 4, nil), defVar("T", nc.DOUBLE, []int{0}, nil),
				putText(nc.GLOBAL, "title", "run 1", nil), putText(nc.GLOBAL, "tmp", "x", nil), endDef,
				redef,
				defDim("t", nc.UNLIMITED, nil),
				setFill(nc.FILL, nil), // T and the variables defined from now on
				defVar("R", nc.FLOAT, []int{1, 0}, nil),
				{"def_var_fill T", func(f *File) error { return DefVarFill(f, 0, false, []float64{-1}) }, nil},
				{"rename_var", func(f *File) error { return f.RenameVar(0, "Temp") }, nil},
				{"del_att", func(f *File) error { return f.DelAtt(nc.GLOBAL, "tmp") }, nil},
				putText(nc.GLOBAL, "title", "run 2", nil),
				endDef},
			calls: []string{"EndDef", "Redef", "EndDef"},
			headers: []*nc.Header{
				{Format: nc.Format64BitData, Dims: []nc.Dim{y},
					Vars: []nc.Var{{Name: "T", Type: nc.DOUBLE, Dims: []int{0}, NoFill: true}},
					Atts: []nc.Att{att("title", "run 1"), att("tmp", "x")}},
				{Format: nc.Format64BitData, Dims: []nc.Dim{y, {Name: "t", Len: nc.UNLIMITED}},
					Vars: []nc.Var{{Name: "Temp", Type: nc.DOUBLE, Dims: []int{0}, Atts: []nc.Att{fillT}},
						{Name: "R", Type: nc.FLOAT, Dims: []int{1, 0}}},
					Atts: []nc.Att{att("title", "run 2")}}},
		},
		{
			name: "bad calls keep PnetCDF's codes and reach no backend",
			steps: []step{defDim("y", 4, nil), defDim("y", 2, nc.ENAMEINUSE), defDim("a/b", 2, nc.EBADNAME),
				defVar("T", nc.DOUBLE, []int{3}, nc.EBADDIM), defVar("T", nc.INT64, []int{0}, nil),
				setFill(7, nc.EINVAL),
				{"def_var_fill wrong type", func(f *File) error { return DefVarFill(f, 0, false, []float64{1}) }, nc.EBADTYPE},
				{"redef in define mode", (*File).Redef, nc.EINDEFINE},
				endDef,
				{"enddef twice", (*File).EndDef, nc.ENOTINDEFINE},
				defDim("x", 2, nc.ENOTINDEFINE), setFill(nc.FILL, nc.ENOTINDEFINE),
				// Data-mode header changes PnetCDF allows on a file need
				// define mode here: the readers hold the EndDef header.
				{"rename_var shorter in data mode", func(f *File) error { return f.RenameVar(0, "U") }, nc.ENOTINDEFINE},
				{"rename_var to a used name", func(f *File) error { return f.RenameVar(0, "T") }, nc.ENAMEINUSE},
				{"rename_var of no variable", func(f *File) error { return f.RenameVar(5, "U") }, nc.ENOTVAR},
			},
			calls: []string{"EndDef"},
			headers: []*nc.Header{{Format: nc.Format64BitData, Dims: []nc.Dim{y},
				Vars: []nc.Var{{Name: "T", Type: nc.INT64, Dims: []int{0}, NoFill: true}}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &handover{}
			f := newFileOf(b, mpi.Comm{}, 1, "owner.nc", &nc.Header{Format: nc.Format64BitData})
			f.define = true
			var errs []string
			for _, s := range tc.steps {
				if err := s.call(f); !errors.Is(err, s.want) || (err == nil) != (s.want == nil) {
					errs = append(errs, s.name+": "+errString(err)+", want "+errString(s.want))
				}
			}
			if len(errs) > 0 {
				t.Errorf("codes:\n%s", strings.Join(errs, "\n"))
			}
			if !reflect.DeepEqual(b.calls, tc.calls) {
				t.Errorf("backend calls %q, want %q", b.calls, tc.calls)
			}
			if !reflect.DeepEqual(b.headers, tc.headers) {
				t.Errorf("headers handed:\n%s\nwant:\n%s", dumpHeaders(b.headers), dumpHeaders(tc.headers))
			}
			own, err := f.Header()
			if err != nil {
				t.Fatal(err)
			}
			last := b.headers[len(b.headers)-1]
			if !reflect.DeepEqual(own, last) {
				t.Errorf("front end's header differs from the one handed at the last EndDef:\n%s\nwant:\n%s", dumpHeaders([]*nc.Header{own}), dumpHeaders([]*nc.Header{last}))
			}
			// The handed header is the backend's own copy.
			last.Vars[0].Name = "changed by the backend"
			if own, _ := f.Header(); own.Vars[0].Name == last.Vars[0].Name {
				t.Errorf("the backend's copy aliases the front end's header")
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func dumpHeaders(hs []*nc.Header) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%+v\n", *h)
	}
	return b.String()
}
