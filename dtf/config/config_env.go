package config

import (
	"errors"
	"fmt"
	"math"
	"os"
)

// ConfigPath returns the config path to use: DTF_INI_FILE when set, else path.
func ConfigPath(path string, getenv func(string) string) string {
	if p := getenv("DTF_INI_FILE"); p != "" {
		return p
	}
	return path
}

// LoadConfigEnv loads the config at ConfigPath(path, os.Getenv) and applies the
// process environment to it. It is what Init uses.
func LoadConfigEnv(path string) (*Config, error) {
	c, err := LoadConfig(ConfigPath(path, os.Getenv))
	if err != nil {
		return nil, err
	}
	if err := c.ApplyEnv(os.Getenv); err != nil {
		return nil, err
	}
	return c, nil
}

// ApplyEnv applies the environment overrides listed on Config, reading variables
// through getenv (os.Getenv in programs, a map in tests). Empty variables are unset.
// If any variable is bad, it returns one *ConfigError per bad variable and changes
// nothing.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	var (
		errs    []error
		applied []string
		updates []func()
	)
	// each registers a parser for one variable; the update runs only if all parse.
	each := func(name string, parse func(v string) (func(), error)) {
		v := getenv(name)
		if v == "" {
			return
		}
		upd, err := parse(v)
		if err != nil {
			errs = append(errs, &ConfigError{Key: name, Msg: fmt.Sprintf("%v", err)})
			return
		}
		applied = append(applied, name+"="+v)
		updates = append(updates, upd)
	}
	each("DTF_TIMEOUT", func(v string) (func(), error) {
		d, err := parseTimeout(v)
		return func() { c.Timeout = d }, err
	})
	each("MAX_WORKGROUP_SIZE", func(v string) (func(), error) {
		n, err := parseInt(v, 1, math.MaxInt32)
		return func() { c.MaxWorkgroupSize = int(n) }, err
	})
	each("DTF_VERBOSE_LEVEL", func(v string) (func(), error) {
		n, err := parseInt(v, -1, 4)
		return func() { c.VerboseLevel = int(n) }, err
	})
	each("DTF_PRINT_STATS", func(v string) (func(), error) {
		b, err := parseBool(v)
		return func() { c.PrintStats = b }, err
	})
	each("DTF_DATA_MSG_SIZE_LIMIT", func(v string) (func(), error) {
		n, err := parseInt(v, 1, math.MaxInt64>>10)
		return func() { c.DataMsgSizeLimit = n << 10 }, err
	})
	each("DTF_VAR_BLOCK_RANGE", func(v string) (func(), error) {
		n, err := parseInt(v, 0, math.MaxInt64)
		return func() { c.IODBRange = n }, err
	})
	each("COUPLET_REPLAY_IO", func(v string) (func(), error) {
		b, err := parseBool(v)
		return func() {
			for _, f := range c.Files {
				f.ReplayIO = b
			}
		}, err
	})
	each("COUPLET_MODE", func(v string) (func(), error) {
		m, err := parseEnum(v, ModeTransfer, ModeFile)
		return func() {
			for _, f := range c.Files {
				f.Mode = m
			}
		}, err
	})
	each("COUPLET_STATS", func(v string) (func(), error) {
		return func() { c.StatsPath = v }, nil
	})
	each("COUPLET_TRANSPORT", func(v string) (func(), error) {
		t, err := parseEnum(v, TransportMPI, TransportUCX)
		return func() { c.Transport = t }, err
	})
	each("COUPLET_LAUNCH", func(v string) (func(), error) {
		l, err := parseEnum(v, LaunchMPMD, LaunchSeparate)
		return func() { c.Launch = l }, err
	})
	each("COUPLET_KVS", func(v string) (func(), error) {
		eps, err := parseEndpoints(v)
		return func() { c.KVS = eps }, err
	})
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, u := range updates {
		u()
	}
	c.EnvApplied = append(c.EnvApplied, applied...)
	c.noteNoEffectEnv(getenv)
	return nil
}
