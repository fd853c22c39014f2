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
	"path/filepath"
	"regexp"
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

// dataRE names the data calls: operation, family, element type, collective.
var dataRE = regexp.MustCompile(`^ncmpi_(put|get|iput|iget|bput|mput|mget)_(var|var1|vara|vars|varm|varn|vard)(?:_(text|schar|uchar|short|ushort|int|uint|long|float|double|longlong|ulonglong))?(_all)?$`)

var opCode = map[string]int{"put": 0, "get": 1, "iput": 2, "iget": 3, "bput": 4, "mput": 0, "mget": 1}

var famCode = map[string]int{"var": 0, "var1": 1, "vara": 2, "vars": 3, "varm": 4, "varn": 5, "vard": 6}

// famArgs are the index arguments of each family after ncid and varid (or, for
// mput/mget, after ncid, num and varids).
var famArgs = map[string][]string{"var": nil, "var1": {"start"}, "vara": {"start", "count"},
	"vars": {"start", "count", "stride"}, "varm": {"start", "count", "stride", "imap"}}

// dataFn builds the wrapper of one data call of the real header: every element
// type, family and operation funnels into one request entry per shape
// (couplet_data, couplet_varn, couplet_vard, couplet_multi), the way PnetCDF's
// dispatch layer funnels its API into one driver call.
func dataFn(p proto) (fn, bool) {
	m := dataRE.FindStringSubmatch(p.name)
	if m == nil {
		return fn{}, false
	}
	op, fam, suf, coll := m[1], m[2], m[3], m[4] != ""
	f := fn{name: p.name}
	name := make([]string, len(p.params))
	for i, q := range p.params {
		name[i] = q.name
		f.params = append(f.params, q.decl())
		f.args = append(f.args, q.name)
	}
	memtype := "couplet_memtype(" + lastName(p, "MPI_Datatype") + ")"
	if suf != "" {
		for _, t := range types {
			if t.suf == suf {
				memtype = t.code
			}
		}
	}
	ic := 0
	if coll {
		ic = 1
	}
	nb := strings.HasSuffix(name[len(name)-1], "req") || strings.HasSuffix(name[len(name)-1], "request")
	req := "NULL"
	if nb {
		req = name[len(name)-1]
	}
	flex := suf == ""
	switch {
	case op == "mput" || op == "mget":
		idx := map[string]string{"start": "NULL", "count": "NULL", "stride": "NULL", "imap": "NULL"}
		for i, a := range famArgs[fam] {
			idx[a] = "(MPI_Offset **)" + name[3+i]
		}
		bufs := name[3+len(famArgs[fam])]
		counts, dtypes := "NULL", "NULL"
		if flex {
			counts, dtypes = "(MPI_Offset *)"+name[len(name)-2], "(MPI_Datatype *)"+name[len(name)-1]
			memtype = "-2"
		}
		f.body = fmt.Sprintf("couplet_multi(%s, %d, %d, %d, %s, %s, %s, %s, %s, %s, %s, (void **)%s, %s, %s)",
			name[0], opCode[op], famCode[fam], ic, memtype, name[1], name[2], idx["start"], idx["count"], idx["stride"], idx["imap"], bufs, counts, dtypes)
	case fam == "varn":
		bufcount := "-1"
		if flex {
			bufcount = name[6]
		}
		f.body = fmt.Sprintf("couplet_varn(%s, %s, %d, %d, %s, %s, (MPI_Offset **)%s, (MPI_Offset **)%s, (void *)%s, %s, %s)",
			name[0], name[1], opCode[op], ic, memtype, name[2], name[3], name[4], name[5], bufcount, req)
	case fam == "vard":
		f.body = fmt.Sprintf("couplet_vard(%s, %s, %d, %d, %s, (void *)%s, %s, %s)",
			name[0], name[1], opCode[op], ic, name[2], name[3], name[4], name[5])
	default:
		idx := map[string]string{"start": "NULL", "count": "NULL", "stride": "NULL", "imap": "NULL"}
		for i, a := range famArgs[fam] {
			idx[a] = "(MPI_Offset *)" + name[2+i]
		}
		buf := name[2+len(famArgs[fam])]
		bufcount := "-1"
		if flex {
			bufcount = name[3+len(famArgs[fam])]
		}
		f.body = fmt.Sprintf("couplet_data(%s, %s, %d, %d, %d, %s, %s, %s, %s, %s, (void *)%s, %s, %s)",
			name[0], name[1], opCode[op], famCode[fam], ic, memtype, idx["start"], idx["count"], idx["stride"], idx["imap"], buf, bufcount, req)
	}
	return f, true
}

// lastName is the name of p's last parameter of type t ("" if none).
func lastName(p proto, t string) string {
	n := ""
	for _, q := range p.params {
		if strings.TrimPrefix(q.typ, "const ") == t {
			n = q.name
		}
	}
	return n
}

// handWritten returns the ncmpi_ functions defined by the hand-written C files
// of capi (every .c file not starting with z), which the generator leaves alone.
func handWritten() (map[string]bool, error) {
	defRE := regexp.MustCompile(`(?m)^(?:[A-Za-z_][\w \t*]*?[\s*])?(ncmpi_\w+)\s*\([^;{]*\)\s*\{|^SIMPLE\((ncmpi_\w+)`)
	paths, err := filepath.Glob("*.c")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "z") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, m := range defRE.FindAllStringSubmatch(string(b), -1) {
			out[m[1]+m[2]] = true
		}
	}
	return out, nil
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
	src := realHeader()
	h, err := parseHeader(src)
	must(err)
	manual, err := handWritten()
	must(err)
	atts := attFns()
	generated := map[string]bool{}
	for _, f := range atts {
		generated[f.name] = true
	}
	var all []fn
	var missing []string
	for _, p := range h.protos {
		if !strings.HasPrefix(p.name, "ncmpi_") || manual[p.name] || generated[p.name] {
			continue
		}
		f, ok := dataFn(p)
		if !ok {
			missing = append(missing, p.name)
			continue
		}
		generated[p.name] = true
		all = append(all, f)
	}
	if len(missing) > 0 {
		log.Fatalf("%s declares functions that are neither data calls nor hand-written in capi/*.c: %s", src, strings.Join(missing, " "))
	}
	all = append(all, atts...)
	var c bytes.Buffer
	c.WriteString("// Code generated by capi/gen; DO NOT EDIT.\n\n#include \"capi.h\"\n#include \"more.h\"\n#include \"_cgo_export.h\"\n\n")
	for _, f := range all {
		real := f.name
		if f.real != "" {
			real = f.real
		}
		fmt.Fprintf(&c, "%s {\n\tif (!COUPLED(%s))\n\t\treturn CALL_REAL(%s, %s);\n\treturn %s;\n}\n\n",
			f.proto(), f.args[0], real, strings.Join(f.args, ", "), f.body)
	}
	must(os.WriteFile("zwrappers.c", c.Bytes(), 0o644))
	must(os.WriteFile("pnetcdf.h", []byte(writeHeader(h, src, extensions("pnetcdf.h"))), 0o644))
}
func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
