package dyadlib

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
)

// Dir returns the directory of the library's sources (this package's directory).
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// IncludeDir returns the directory to pass with -I to compile against DYAD's headers.
func IncludeDir() string { return filepath.Join(Dir(), "include") }

// Sources returns the library's C sources.
func Sources() ([]string, error) {
	srcs, err := filepath.Glob(filepath.Join(Dir(), "src", "*.c"))
	if err != nil || len(srcs) == 0 {
		return nil, fmt.Errorf("dyadlib: no C sources under %s", filepath.Join(Dir(), "src"))
	}
	sort.Strings(srcs)
	return srcs, nil
}

// CFlags are the flags the library is compiled with (the Makefile uses the same).
var CFlags = []string{"-O2", "-g", "-Wall", "-Wextra", "-Werror", "-std=gnu11", "-fPIC", "-fvisibility=hidden"}

// Build compiles libcouplet-dyad.so to out with the system C compiler (CC, else cc).
func Build(out string) error {
	srcs, err := Sources()
	if err != nil {
		return err
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	args := append(append([]string{}, CFlags...), "-shared", "-I"+IncludeDir(), "-o", out)
	args = append(append(args, srcs...), "-lpthread")
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("dyadlib: %s %v: %v\n%s", cc, args, err, b)
	}
	return nil
}
