package bench

// Case numbers, as issue 7 lists them.
const (
	CaseArray    = 1 // array coupling vs raw MPI vs PnetCDF files
	CaseMatching = 2 // matching scaling
	CaseReplay   = 3 // replay on vs off over cycles
	CaseStaging  = 4 // file staging: rpc DTL vs loopback TCP vs cp
	CaseLocator  = 5 // locator lookups per level
	CaseUCX      = 6 // UCX vs MPI transports
)

// CaseStatus says whether a case was measured in this run, and if not why.
type CaseStatus struct {
	ID     int    `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"` // "measured", "skipped" (not selected) or "missing" (engine not landed)
	Note   string `json:"note,omitempty"`
}

// caseTitles names every case.
var caseTitles = map[int]string{
	CaseArray:    "Array coupling: couplet vs raw MPI vs PnetCDF files (3-D float64, 4 writers -> 2 readers)",
	CaseMatching: "Matching scaling: 10^3 to 10^6 boxes, 1 to 8 matchers",
	CaseReplay:   "Replay on vs off over cycles",
	CaseStaging:  "File staging: rpc DTL vs raw loopback TCP vs cp",
	CaseLocator:  "Locator lookups per level",
	CaseUCX:      "UCX vs MPI transports",
}

// missingReason says why a case cannot be measured yet. Cases 1 and 2 are
// absent: they always run.
var missingReason = map[int]string{
	CaseReplay:  "the replay engine (replay/) has not landed; nothing is measured until it exists",
	CaseStaging: "dyad/ was being written concurrently with this harness and is not driven by it yet (dyad's own BenchmarkStaging in dyad/bench_test.go measures it with go test -bench); no numbers here until the harness runs it side by side",
	CaseLocator: "dyad's locator is not driven by this harness yet (see dyad's own BenchmarkLocator); no numbers here",
	CaseUCX:     "the UCX transport (ucx/, transport/) has not landed",
}

// AllCases lists every case number in order.
var AllCases = []int{CaseArray, CaseMatching, CaseReplay, CaseStaging, CaseLocator, CaseUCX}
