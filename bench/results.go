package bench

import (
	"encoding/json"
	"os"
)

// Results is every number of one harness run; it is what results.json holds.
type Results struct {
	Generated string  `json:"generated"` // RFC 3339 time the run ended
	Command   string  `json:"command"`   // the command that reproduces it
	Quick     bool    `json:"quick"`
	Seconds   float64 `json:"seconds"` // wall time of the whole run
	Machine   Machine `json:"machine"`
	// Memcpy is Go's copy bandwidth in GB/s (1e9 bytes copied per second)
	// over MemcpyBytes: the ceiling no exchange can pass.
	Memcpy      Summary         `json:"memcpy_gb_per_s"`
	MemcpyBytes int64           `json:"memcpy_bytes"`
	Cases       []CaseStatus    `json:"cases"`
	Exchange    []ExchangePoint `json:"exchange,omitempty"`
	Matching    []MatchPoint    `json:"matching,omitempty"`
	// Replay is case 3, Staging cases 4 and 6b, Locator case 5 and
	// UCXExchange case 6a.
	Replay      *ReplayResult      `json:"replay,omitempty"`
	Staging     []StagingPoint     `json:"staging,omitempty"`
	Locator     []LocatorPoint     `json:"locator,omitempty"`
	UCXExchange []UCXExchangePoint `json:"ucx_exchange,omitempty"`
	// Intercept is case 7, per kind of path.
	Intercept []InterceptPoint `json:"intercept,omitempty"`
	// LoadStart and LoadEnd are /proc/loadavg when the run began and ended:
	// the machine may be shared.
	LoadStart string `json:"load_start,omitempty"`
	LoadEnd   string `json:"load_end,omitempty"`
}

// WriteJSON writes r, indented, to path.
func (r *Results) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadResults loads a results.json.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	return &r, json.Unmarshal(b, &r)
}
