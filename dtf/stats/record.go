package stats

import "time"

// Outcome says how replay went in one epoch on one rank.
type Outcome string

// Replay outcomes.
const (
	Off  Outcome = "off"  // replay_io is 0, or this epoch has no record yet
	Hit  Outcome = "hit"  // signatures matched: matching was skipped
	Miss Outcome = "miss" // signatures differed: full matching, re-recorded
)

// Role names of a record.
const (
	RoleWriter = "writer" // a writer rank (matcher ranks are writers)
	RoleReader = "reader"
)

// Record is the statistics of one rank for one transfer epoch of one file.
// Records are written as JSON lines (see Writer); durations are integer
// nanoseconds. The package documentation says what each time covers.
type Record struct {
	File     string `json:"file"`    // file path as opened
	Section  int    `json:"section"` // index of the [FILE] section (config.FileConfig.Index)
	Session  int    `json:"session"` // open/close session of the file, from 0
	Epoch    int    `json:"epoch"`   // epoch within the session, from 0
	Role     string `json:"role"`    // RoleWriter or RoleReader
	Rank     int    `json:"rank"`    // rank within its component
	Comp     string `json:"comp"`    // component name
	Bytes    int64  `json:"bytes"`   // array data this rank sent (writer) or received (reader)
	Requests int64  `json:"requests"`

	MatchTime    time.Duration `json:"match_ns"`             // matcher work on this rank; none when replay skipped matching
	SchedTime    time.Duration `json:"sched_ns,omitempty"`   // reader: wait for schedules beyond the wait for the writers
	WaitTime     time.Duration `json:"wait_ns"`              // reader: wait for the writers to reach the epoch end
	TransferTime time.Duration `json:"transfer_ns"`          // readers: posting receives and receiving; writers: the epoch end
	UserIOTime   time.Duration `json:"user_io_ns,omitempty"` // time between dtf_time_start and dtf_time_end
	MsgsSent     int64         `json:"msgs_sent"`            // messages this rank sent, control and data
	MsgsRecv     int64         `json:"msgs_recv"`            // messages this rank received
	Replay       Outcome       `json:"replay"`               // replay outcome
	Pushed       int           `json:"pushed,omitempty"`     // reader: rounds taken as every writer pushed them by its record, without the matchers
	Drained      int           `json:"drained,omitempty"`    // reader: pushed transfers it received only to discard
	Start        time.Time     `json:"start"`                // epoch start on this rank
	End          time.Time     `json:"end"`                  // epoch end on this rank
	Error        string        `json:"error,omitempty"`      // the epoch's error, if it failed
}
