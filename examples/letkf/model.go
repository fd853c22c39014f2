package letkf

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
)

// Alpha is the weight with which the analysis relaxes toward the ensemble
// mean of the forecasts.
const Alpha float32 = 0.25

// CycleSeconds is the model time between two cycles (6 hours).
const CycleSeconds = 6 * 3600

// Initial is the first guess of member m, variable v at point (k, j, i) in
// cycle 0. Values are multiples of 1/8 below 125, exact in float32.
func Initial(m, v int, k, j, i int64) float32 {
	return float32((k*131+j*31+i*7+int64(v)*17+int64(m)*3)%1000) / 8
}

// Perturbation is what the model adds to the first guess of member m,
// variable v at (k, j, i) in cycle c to make its forecast: an integer in
// [-8, 8] that differs between members, so the ensemble spreads.
func Perturbation(m, v, c int, k, j, i int64) float32 {
	return float32((int64((m+1)*(c+1)*(v+1))+k+2*j+3*i)%17) - 8
}

// Forecast returns the forecast (history) of member m, variable v over box b
// in cycle c from its first guess.
func Forecast(guess []float32, m, v, c int, b Box) []float32 {
	out := make([]float32, len(guess))
	b.Each(func(n int, k, j, i int64) {
		// The explicit conversion rounds here, so no compiler may fuse
		// differently in sim and da.
		out[n] = float32(guess[n] + Perturbation(m, v, c, k, j, i))
	})
	return out
}

// Relax returns the analysis: guess moved by Alpha toward the ensemble mean
// of the forecasts, summed in member order so every rank that computes it
// gets the same bits.
func Relax(guess []float32, forecasts [][]float32) []float32 {
	out := make([]float32, len(guess))
	inv := float32(len(forecasts))
	for n := range guess {
		var sum float32
		for _, f := range forecasts {
			sum = float32(sum + f[n])
		}
		mean := float32(sum / inv)
		out[n] = float32(guess[n] + float32(Alpha*float32(mean-guess[n])))
	}
	return out
}

// InitialField returns Initial of member m, variable v over box b.
func InitialField(m, v int, b Box) []float32 {
	out := make([]float32, b.Len())
	b.Each(func(n int, k, j, i int64) { out[n] = Initial(m, v, k, j, i) })
	return out
}

// ForecastTime is the value of "time" in cycle c's history and first-guess files.
func ForecastTime(c int) float64 { return float64(c+1) * CycleSeconds }

// AnalysisTime is the value of "time" that da writes back in cycle c.
func AnalysisTime(c int) float64 { return ForecastTime(c) + 0.5 }

// Compare returns an error naming the first element of got that differs
// bit for bit from want.
func Compare(what string, b Box, got, want []float32) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, want %d", what, len(got), len(want))
	}
	for n := range want {
		if math.Float32bits(got[n]) != math.Float32bits(want[n]) {
			k, j, i := b.Point(n)
			return fmt.Errorf("%s: (k,j,i)=(%d,%d,%d) is %v, want %v", what, k, j, i, got[n], want[n])
		}
	}
	return nil
}

// Checksum is an FNV-1a hash of float32 fields followed by float64 scalars,
// for comparing what two runs delivered.
type Checksum struct{ h uint64 }

// NewChecksum starts a checksum.
func NewChecksum() *Checksum { return &Checksum{h: 14695981039346656037} }

// Float32s adds a field.
func (c *Checksum) Float32s(xs []float32) {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], c.h)
	h.Write(b[:])
	buf := make([]byte, 0, 4096)
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	c.h = h.Sum64()
}

// Float64 adds a scalar.
func (c *Checksum) Float64(x float64) { c.Uint64(math.Float64bits(x)) }

// Uint64 adds a word, such as another rank's checksum.
func (c *Checksum) Uint64(x uint64) {
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], c.h)
	binary.LittleEndian.PutUint64(b[8:], x)
	h.Write(b[:])
	c.h = h.Sum64()
}

// Sum returns the checksum.
func (c *Checksum) Sum() uint64 { return c.h }
