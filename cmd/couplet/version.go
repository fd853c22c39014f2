package main

import "runtime/debug"

// version is set at link time (-ldflags "-X main.version=v1.2.3"); without it the
// module version and VCS revision recorded by the Go toolchain are shown.
var version string

func init() { root.Version = versionString() }

func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return v
}
