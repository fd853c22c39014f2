// Command gen writes the repetitive parts of the capi library: the C wrappers
// of every typed, flexible and nonblocking data call and of the typed
// attribute calls (zwrappers.c), and the public header (pnetcdf.h). Run it
// with `go generate ./capi`.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"
)

// ctype is a C element type of PnetCDF's typed API and the nc.Type code of
// its memory layout (long and long long are both NC_INT64 on LP64).
type ctype struct {
	suf, c, code string
}

var types = []ctype{
	{"text", "char", "NC_CHAR"},
	{"schar", "signed char", "NC_BYTE"},
	{"uchar", "unsigned char", "NC_UBYTE"},
	{"short", "short", "NC_SHORT"},
	{"ushort", "unsigned short", "NC_USHORT"},
	{"int", "int", "NC_INT"},
	{"uint", "unsigned int", "NC_UINT"},
	{"long", "long", "NC_INT64"},
	{"float", "float", "NC_FLOAT"},
	{"double", "double", "NC_DOUBLE"},
	{"longlong", "long long", "NC_INT64"},
	{"ulonglong", "unsigned long long", "NC_UINT64"},
}

// family is a shape of index arguments; the values match capi's famVar...
type family struct {
	name string
	args []string // index argument names, each a const MPI_Offset *
	code int
}

var families = []family{
	{"var", nil, 0},
	{"var1", []string{"start"}, 1},
	{"vara", []string{"start", "count"}, 2},
	{"vars", []string{"start", "count", "stride"}, 3},
	{"varm", []string{"start", "count", "stride", "imap"}, 4},
}

// op is a data operation; the codes match capi's opPut...
type op struct {
	name  string
	code  int
	put   bool
	nb    bool // nonblocking: takes int *request
	colls []string
}

var ops = []op{
	{"put", 0, true, false, []string{"", "_all"}},
	{"get", 1, false, false, []string{"", "_all"}},
	{"iput", 2, true, true, []string{""}},
	{"iget", 3, false, true, []string{""}},
	{"bput", 4, true, true, []string{""}},
}

// fn is one generated function: its prototype pieces and the Go call.
type fn struct {
	name   string
	real   string   // the real libpnetcdf function to forward to, when not name
	params []string // "type name"
	args   []string // names, to forward verbatim
	body   string   // the coupled-file path
}

func (f fn) proto() string {
	return fmt.Sprintf("int %s(%s)", f.name, strings.Join(f.params, ", "))
}

func dataFns() []fn {
	var out []fn
	for _, o := range ops {
		for _, fam := range families {
			for _, coll := range o.colls {
				for _, t := range append([]ctype{{"", "void", ""}}, types...) {
					flex := t.suf == ""
					name := "ncmpi_" + o.name + "_" + fam.name
					if !flex {
						name += "_" + t.suf
					}
					name += coll
					f := fn{name: name, params: []string{"int ncid", "int varid"}, args: []string{"ncid", "varid"}}
					idx := map[string]string{"start": "NULL", "count": "NULL", "stride": "NULL", "imap": "NULL"}
					for _, a := range fam.args {
						f.params = append(f.params, "const MPI_Offset *"+a)
						f.args = append(f.args, a)
						idx[a] = "(MPI_Offset *)" + a
					}
					cst := ""
					if o.put {
						cst = "const "
					}
					f.params = append(f.params, cst+t.c+" *buf")
					f.args = append(f.args, "buf")
					bufcount, memtype := "-1", t.code
					if flex {
						f.params = append(f.params, "MPI_Offset bufcount", "MPI_Datatype buftype")
						f.args = append(f.args, "bufcount", "buftype")
						bufcount, memtype = "bufcount", "couplet_memtype(buftype)"
					}
					req := "NULL"
					if o.nb {
						f.params = append(f.params, "int *request")
						f.args = append(f.args, "request")
						req = "request"
					}
					isColl := 0
					if coll != "" {
						isColl = 1
					}
					f.body = fmt.Sprintf("couplet_data(ncid, varid, %d, %d, %d, %s, %s, %s, %s, %s, (void *)buf, %s, %s)",
						o.code, fam.code, isColl, memtype, idx["start"], idx["count"], idx["stride"], idx["imap"], bufcount, req)
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func attFns() []fn {
	var out []fn
	attTypes := append([]ctype{}, types...)
	attTypes = append(attTypes, ctype{"ubyte", "unsigned char", "NC_UBYTE"})
	for _, t := range attTypes {
		put := fn{name: "ncmpi_put_att_" + t.suf, params: []string{"int ncid", "int varid", "const char *name"}, args: []string{"ncid", "varid", "name"}}
		xtype := "xtype"
		if t.suf == "text" {
			xtype = "NC_CHAR"
		} else {
			put.params = append(put.params, "nc_type xtype")
			put.args = append(put.args, "xtype")
		}
		put.params = append(put.params, "MPI_Offset len", "const "+t.c+" *buf")
		put.args = append(put.args, "len", "buf")
		put.body = fmt.Sprintf("couplet_put_att(ncid, varid, (char *)name, %s, len, %s, (void *)buf)", xtype, t.code)
		get := fn{name: "ncmpi_get_att_" + t.suf, params: []string{"int ncid", "int varid", "const char *name", t.c + " *buf"},
			args: []string{"ncid", "varid", "name", "buf"}}
		get.body = fmt.Sprintf("couplet_get_att(ncid, varid, (char *)name, %s, (void *)buf)", t.code)
		if t.suf == "ubyte" {
			// libpnetcdf 1.12 declares but does not define the ubyte forms;
			// its uchar forms mean the same.
			put.real, get.real = "ncmpi_put_att_uchar", "ncmpi_get_att_uchar"
		}
		out = append(out, put, get)
	}
	out = append(out,
		fn{name: "ncmpi_put_att", params: []string{"int ncid", "int varid", "const char *name", "nc_type xtype", "MPI_Offset len", "const void *buf"},
			args: []string{"ncid", "varid", "name", "xtype", "len", "buf"},
			body: "couplet_put_att(ncid, varid, (char *)name, xtype, len, xtype, (void *)buf)"},
		fn{name: "ncmpi_get_att", params: []string{"int ncid", "int varid", "const char *name", "void *buf"},
			args: []string{"ncid", "varid", "name", "buf"},
			body: "couplet_get_att(ncid, varid, (char *)name, NC_NAT, buf)"})
	return out
}

func main() {
	all := append(dataFns(), attFns()...)
	var c bytes.Buffer
	c.WriteString("// Code generated by capi/gen; DO NOT EDIT.\n\n#include \"capi.h\"\n#include \"_cgo_export.h\"\n\n")
	for _, f := range all {
		real := f.name
		if f.real != "" {
			real = f.real
		}
		fmt.Fprintf(&c, "%s {\n\tif (!COUPLED(ncid))\n\t\treturn REAL(%s)(%s);\n\treturn %s;\n}\n\n",
			f.proto(), real, strings.Join(f.args, ", "), f.body)
	}
	var h bytes.Buffer
	h.WriteString(headerHead)
	for _, f := range all {
		fmt.Fprintf(&h, "%s;\n", f.proto())
	}
	h.WriteString(headerTail)
	must(os.WriteFile("zwrappers.c", c.Bytes(), 0o644))
	must(os.WriteFile("pnetcdf.h", h.Bytes(), 0o644))
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
