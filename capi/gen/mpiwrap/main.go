// Command mpiwrap writes capi/zworldsplit.c: the MPI profiling-interface
// wrappers through which libcouplet's world split makes MPI_COMM_WORLD mean
// the component's communicator. Run it with `go generate ./capi`.
//
// It reads Open MPI's mpi.h and wraps every MPI function that takes a
// communicator by value, in C (MPI_Send -> PMPI_Send) and in Fortran
// (mpi_send_ -> pmpi_send_, gfortran's naming, which both mpif.h and `use mpi`
// programs call: Open MPI's Fortran bindings reach its C internals directly,
// never the C MPI_* entry points, so they need wrappers of their own).
// Functions taking a group need no translation: a group of "the world" can
// only come from MPI_Comm_group on a (translated) communicator, so the
// generator leaves them alone. Every MPI_File_* function (whether or not it
// takes a communicator) also holds the MPI-IO exclusion of package mpi
// (mpi/io.c) while it runs, so that dtf's background progress stays out of
// MPI meanwhile: Open MPI's OMPIO is not thread safe. Hand-written calls live
// in worldsplit.c: MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Pcontrol.
// MPI_Abort is not wrapped: aborting means the whole job, as with the real
// world.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// param is one parameter of a C prototype.
type param struct {
	decl string // as written in mpi.h
	name string
	comm bool // an MPI_Comm passed by value: translated
	char bool // a character argument: Fortran passes a hidden length for it
}

// proto is one MPI function of mpi.h.
type proto struct {
	name   string // MPI_Send
	params []param
	io     bool // an MPI_File_* call: held under the MPI-IO exclusion
}

var (
	declRE  = regexp.MustCompile(`(?s)OMPI_DECLSPEC\s+int\s+(MPI_\w+)\s*\(([^)]*)\)([^;]*);`)
	nameRE  = regexp.MustCompile(`(\w+)\s*(\[[^\]]*\]\s*)*$`)
	commRE  = regexp.MustCompile(`^(const\s+)?MPI_Comm\s+\w+$`)
	charRE  = regexp.MustCompile(`\bchar\b`)
	skipped = map[string]string{
		"MPI_Abort":       "aborting means the whole job",
		"MPI_Comm_c2f":    "a conversion, not a use",
		"MPI_Pcontrol":    "hand-written: the escape to the real world",
		"MPI_Init":        "hand-written: decides the component",
		"MPI_Init_thread": "hand-written: decides the component",
		"MPI_Finalize":    "hand-written: ends the coupling runtime",
	}
	// attrGets read attributes: a predefined key (MPI_APPNUM, MPI_TAG_UB...)
	// is an attribute of the real world only.
	attrGets = map[string]bool{"MPI_Comm_get_attr": true, "MPI_Attr_get": true}
)

// parse extracts the prototypes of mpi.h that take a communicator by value,
// and those of MPI-IO (MPI_File_*).
func parse(header []byte) []proto {
	var out []proto
	seen := map[string]bool{}
	for _, m := range declRE.FindAllSubmatch(header, -1) {
		name, args, tail := string(m[1]), string(m[2]), string(m[3])
		if strings.Contains(tail, "removed") || seen[name] {
			continue // removed from MPI-3 (declared only to say so)
		}
		if _, ok := skipped[name]; ok {
			continue
		}
		p := proto{name: name, io: strings.HasPrefix(name, "MPI_File_")}
		hasComm := false
		for _, a := range strings.Split(args, ",") {
			a = strings.Join(strings.Fields(a), " ")
			if a == "void" || a == "" {
				continue
			}
			nm := nameRE.FindStringSubmatch(a)
			if nm == nil {
				log.Fatalf("%s: cannot name parameter %q", name, a)
			}
			q := param{decl: a, name: nm[1], comm: commRE.MatchString(a), char: charRE.MatchString(a)}
			hasComm = hasComm || q.comm
			p.params = append(p.params, q)
		}
		if hasComm || p.io {
			seen[name] = true
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// arg is how a wrapper passes parameter i on in C.
func (p proto) arg(i int) string {
	q := p.params[i]
	if !q.comm {
		return q.name
	}
	if attrGets[p.name] {
		return fmt.Sprintf("COUPLET_WORLD_ATTR(%s, %s)", q.name, p.params[i+1].name)
	}
	return fmt.Sprintf("COUPLET_WORLD(%s)", q.name)
}

func emitC(b *bytes.Buffer, p proto) {
	decls, args := make([]string, len(p.params)), make([]string, len(p.params))
	for i, q := range p.params {
		decls[i], args[i] = q.decl, p.arg(i)
	}
	call := fmt.Sprintf("P%s(%s)", p.name, strings.Join(args, ", "))
	if p.io {
		fmt.Fprintf(b, "int %s(%s) {\n\tcouplet_io_enter();\n\tint err = %s;\n\tcouplet_io_leave();\n\treturn err;\n}\n\n",
			p.name, strings.Join(decls, ", "), call)
		return
	}
	fmt.Fprintf(b, "int %s(%s) {\n\treturn %s;\n}\n\n", p.name, strings.Join(decls, ", "), call)
}

// emitFortran writes mpi_name_: every Fortran argument is a pointer, ierr
// comes last, then one hidden length per character argument.
func emitFortran(b *bytes.Buffer, p proto) {
	lower := strings.ToLower(p.name)
	var decls, types, args []string
	for i, q := range p.params {
		a := fmt.Sprintf("a%d", i)
		if q.comm {
			decls = append(decls, "MPI_Fint *"+a)
			types = append(types, "MPI_Fint *")
			if attrGets[p.name] {
				args = append(args, fmt.Sprintf("COUPLET_WORLD_F_ATTR(%s, a%d)", a, i+1))
			} else {
				args = append(args, fmt.Sprintf("COUPLET_WORLD_F(%s)", a))
			}
			continue
		}
		if attrGets[p.name] && i > 0 && p.params[i-1].comm {
			decls = append(decls, "MPI_Fint *"+a)
			types = append(types, "MPI_Fint *")
		} else {
			decls = append(decls, "void *"+a)
			types = append(types, "void *")
		}
		args = append(args, a)
	}
	decls, types, args = append(decls, "MPI_Fint *ierr"), append(types, "MPI_Fint *"), append(args, "ierr")
	for i, q := range p.params {
		if q.char {
			l := fmt.Sprintf("l%d", i)
			decls, types, args = append(decls, "size_t "+l), append(types, "size_t"), append(args, l)
		}
	}
	fmt.Fprintf(b, "void %s_(%s) {\n", lower, strings.Join(decls, ", "))
	fmt.Fprintf(b, "\tstatic void (*real)(%s);\n", strings.Join(types, ", "))
	fmt.Fprintf(b, "\tif (!real) real = couplet_fortran_real(\"p%s_\");\n", lower)
	call := fmt.Sprintf("\treal(%s);\n", strings.Join(args, ", "))
	if p.io {
		call = "\tcouplet_io_enter();\n" + call + "\tcouplet_io_leave();\n"
	}
	fmt.Fprintf(b, "%s}\n\n", call)
}

func main() {
	out := flag.String("o", "zworldsplit.c", "output file")
	hdr := flag.String("mpi-h", "", "Open MPI's mpi.h (default: from pkg-config ompi-c)")
	flag.Parse()
	if *hdr == "" {
		dir, err := exec.Command("pkg-config", "--variable=includedir", "ompi-c").Output()
		if err != nil {
			log.Fatalf("pkg-config ompi-c: %v", err)
		}
		*hdr = filepath.Join(strings.TrimSpace(string(dir)), "mpi.h")
	}
	src, err := os.ReadFile(*hdr)
	if err != nil {
		log.Fatal(err)
	}
	protos := parse(src)
	if len(protos) < 100 {
		log.Fatalf("%s: only %d functions take a communicator; is it Open MPI's mpi.h?", *hdr, len(protos))
	}
	var b bytes.Buffer
	b.WriteString(`/* Code generated by capi/gen/mpiwrap from Open MPI's mpi.h; DO NOT EDIT.
 *
 * The world split: every MPI function that takes a communicator, in C and in
 * Fortran, passes MPI_COMM_WORLD on as the component's communicator while the
 * split is on (see worldsplit.c); every MPI_File_* function holds the MPI-IO
 * exclusion (mpi/io.c) while it runs. */
#define _GNU_SOURCE
#include "worldsplit.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

`)
	for _, p := range protos {
		emitC(&b, p)
	}
	b.WriteString("/* Fortran (gfortran naming): mpif.h and `use mpi` programs call these. */\n\n")
	for _, p := range protos {
		emitFortran(&b, p)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "mpiwrap: %d functions from %s\n", len(protos), *hdr)
}
