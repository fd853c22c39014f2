package bench

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/couplet-hpc/couplet/internal/mpilaunch"
)

// Machine describes where the numbers were taken.
type Machine struct {
	Cores     int      `json:"cores"`      // logical CPUs
	CPU       string   `json:"cpu"`        // model name from /proc/cpuinfo
	MHz       string   `json:"mhz"`        // clock from /proc/cpuinfo: hosts of one model name differ in it
	Vectors   string   `json:"vectors"`    // widest x86 vector extension
	MemBytes  int64    `json:"mem_bytes"`  // MemTotal
	Kernel    string   `json:"kernel"`     // kernel release
	Go        string   `json:"go"`         // Go version of the harness
	OpenMPI   string   `json:"open_mpi"`   // `mpirun --version`
	PnetCDF   string   `json:"pnetcdf"`    // `pnetcdf-config --version`
	UCX       string   `json:"ucx"`        // `pkg-config --modversion ucx`
	MCA       []string `json:"mca"`        // Open MPI settings every launch used
	TmpDir    string   `json:"tmp_dir"`    // where real files were written
	TmpFSType string   `json:"tmp_fstype"` // file system type of TmpDir
	TCPCC     string   `json:"tcp_cc"`     // the system's default TCP congestion control
	// PageReporting says whether a virtio balloon reports freed pages to the VM's host,
	// which takes them back: memory used again faults in afresh, at a cost that moves
	// with what the previous measurement freed.
	PageReporting bool `json:"page_reporting"`
	// PageReportingDeferred is how the run delayed that reporting for its measurements
	// ("min_free_ms 0 -> 60000", restored at its end), empty if it did not.
	PageReportingDeferred string `json:"page_reporting_deferred,omitempty"`
	// DAMON describes each running kdamond (DAMON's monitoring thread): its sampling
	// clears the accessed bits of pages it picks at random, and the next access through
	// a process's mapping then pays for it (see the report's Machine table).
	DAMON []string `json:"damon,omitempty"`
	// DAMONPaused says the run turned those kdamonds off for its measurements and back
	// on after them (Options.KeepDAMON unset, and allowed to).
	DAMONPaused bool `json:"damon_paused,omitempty"`
}

// DetectMachine gathers the machine description; fields it cannot learn stay
// empty. extra are OMPI_MCA_ settings the run adds to its launches.
func DetectMachine(extra []string) Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), TmpDir: os.TempDir()}
	m.CPU = procField("/proc/cpuinfo", "model name")
	m.MHz = procField("/proc/cpuinfo", "cpu MHz")
	m.Vectors = vectorUnits()
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		n, _ := strconv.ParseInt(strings.Fields(kb)[0], 10, 64)
		m.MemBytes = n << 10
	}
	m.Kernel = readTrim("/proc/sys/kernel/osrelease")
	m.OpenMPI = firstLine("mpirun", "--version")
	m.PnetCDF = firstLine("pnetcdf-config", "--version")
	if v := firstLine("pkg-config", "--modversion", "ucx"); v != "" {
		m.UCX = "UCX " + v
	}
	m.MCA = mcaSettings(extra)
	m.TmpFSType = fsType(m.TmpDir)
	m.PageReporting = pageReporting()
	m.DAMON = damonMonitors(damonAdmin)
	m.TCPCC = readTrim("/proc/sys/net/ipv4/tcp_congestion_control")
	return m
}

// pageReporting says whether a virtio balloon device offers free page reporting
// (device id 5, feature bit 5 in sysfs's feature string).
func pageReporting() bool {
	devs, _ := filepath.Glob("/sys/bus/virtio/devices/*")
	for _, d := range devs {
		f, _ := os.ReadFile(filepath.Join(d, "features"))
		if readTrim(filepath.Join(d, "device")) == "0x0005" && len(f) > 5 && f[5] == '1' {
			return true
		}
	}
	return false
}

// vectorUnits names the widest x86 vector extension the processor offers:
// hosts of one model name may differ in it, and copies and checksums run at
// its width.
func vectorUnits() string {
	switch {
	case cpu.X86.HasAVX512F:
		return "AVX-512"
	case cpu.X86.HasAVX2:
		return "AVX2"
	case runtime.GOARCH == "amd64":
		return "SSE"
	}
	return ""
}

// mcaSettings lists the OMPI_MCA_ settings launches get: the environment's,
// then the platform's, then extra (later ones win, as in the launch).
func mcaSettings(extra []string) []string {
	set := map[string]string{}
	all := append(append(os.Environ(), mpilaunch.PlatformEnv...), extra...)
	for _, kv := range all {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "OMPI_MCA_") {
			set[k] = v
		}
	}
	var out []string
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// readTrim returns a file's content without surrounding space ("" when unreadable).
func readTrim(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// firstLine runs a command and returns the first line of its output.
func firstLine(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// fsType returns the type of the file system holding dir, from /proc/mounts
// (longest matching mount point).
func fsType(dir string) string {
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return ""
	}
	best, typ := "", ""
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		if (dir == mp || strings.HasPrefix(dir, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > len(best) {
			best, typ = mp, f[2]
		}
	}
	return typ
}
