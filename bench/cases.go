package bench

// Case numbers, as issue 7 lists them.
const (
	CaseArray     = 1 // array coupling vs raw MPI vs PnetCDF files
	CaseMatching  = 2 // matching scaling
	CaseReplay    = 3 // replay on vs off over cycles
	CaseStaging   = 4 // file staging: rpc DTL vs loopback TCP vs cp
	CaseLocator   = 5 // locator lookups per level
	CaseUCX       = 6 // UCX vs MPI transports
	CaseIntercept = 7 // LD_PRELOAD interception overhead outside the managed directories
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
	CaseArray:     "Array coupling: couplet vs raw MPI vs PnetCDF files (3-D float64, 4 writers -> 2 readers)",
	CaseMatching:  "Matching scaling: 10^3 to 10^6 boxes, 1 to 8 matchers",
	CaseReplay:    "Replay on vs off over cycles",
	CaseStaging:   "File staging: rpc DTL vs raw loopback TCP vs cp (dyad agents)",
	CaseLocator:   "Locator lookups per level",
	CaseUCX:       "UCX vs MPI: array coupling across two launches, and staging over the ucx DTL",
	CaseIntercept: "Interception overhead: open+close outside the managed directories with libcouplet-dyad.so preloaded",
}

// missingReason says why a case cannot be measured yet; every engine has
// landed, so it is empty, but a case listed here is reported as missing.
var missingReason = map[int]string{}

// AllCases lists every case number in order.
var AllCases = []int{CaseArray, CaseMatching, CaseReplay, CaseStaging, CaseLocator, CaseUCX, CaseIntercept}
