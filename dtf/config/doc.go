// Package config reads and checks dtf's configuration: the INI file DTF defined
// ([INFO] and [FILE] sections, with DTF's keys and couplet's additions), the
// environment overrides, and the file-name patterns. Errors carry line numbers.
// It is plain Go with no MPI, so `couplet config check` and other tools can use
// it without joining a run; package dtf re-exports its names.
package config
