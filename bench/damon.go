package bench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// damonAdmin is DAMON's sysfs interface.
const damonAdmin = "/sys/kernel/mm/damon/admin"

// runningKdamonds lists the kdamond directories under admin (DAMON's sysfs directory)
// whose state is "on".
func runningKdamonds(admin string) []string {
	kds, _ := filepath.Glob(filepath.Join(admin, "kdamonds", "[0-9]*"))
	var on []string
	for _, kd := range kds {
		if readTrim(filepath.Join(kd, "state")) == "on" {
			on = append(on, kd)
		}
	}
	return on
}

// damonMonitors describes the running kdamonds under admin, each context as its
// operations, sampling interval and scheme actions: "paddr, sampling every 500ms,
// pageout".
func damonMonitors(admin string) []string {
	var out []string
	for _, kd := range runningKdamonds(admin) {
		ctxs, _ := filepath.Glob(filepath.Join(kd, "contexts", "[0-9]*"))
		for _, c := range ctxs {
			parts := []string{orDash(readTrim(filepath.Join(c, "operations")))}
			if us, err := strconv.ParseInt(readTrim(filepath.Join(c, "monitoring_attrs", "intervals", "sample_us")), 10, 64); err == nil {
				parts = append(parts, fmt.Sprintf("sampling every %s", time.Duration(us)*time.Microsecond))
			}
			schemes, _ := filepath.Glob(filepath.Join(c, "schemes", "[0-9]*"))
			for _, sc := range schemes {
				if a := readTrim(filepath.Join(sc, "action")); a != "" {
					parts = append(parts, a)
				}
			}
			out = append(out, strings.Join(parts, ", "))
		}
	}
	return out
}

// pauseDAMON turns the running kdamonds under admin off and returns what turns them
// back on (their settings stay in sysfs, so each restarts as it was), as applySettings
// does. With none running it does nothing.
func pauseDAMON(admin string) (resume func() error, err error) {
	var ss []setting
	for _, kd := range runningKdamonds(admin) {
		ss = append(ss, setting{path: filepath.Join(kd, "state"), was: "on", set: "off"})
	}
	return applySettings(ss)
}
