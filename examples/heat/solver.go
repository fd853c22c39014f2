package main

import "math"

// alpha is the diffusion number κ·Δt/Δx²; the explicit scheme is stable
// below 0.25.
const alpha = 0.24

// hotSpot is a Gaussian bump of the initial temperature, in fractions of the
// grid.
type hotSpot struct{ y, x, width, amp float64 }

// hotSpots is the deterministic initial condition.
var hotSpots = []hotSpot{
	{0.30, 0.25, 0.06, 100},
	{0.60, 0.70, 0.08, 80},
	{0.80, 0.45, 0.04, 120},
	{0.15, 0.85, 0.05, 60},
}

// initial sets the interior to the sum of the hot spots.
func (g *grid) initial() {
	w := float64(min(g.nx, g.ny))
	for i := int64(0); i < g.ly; i++ {
		for j := int64(0); j < g.lx; j++ {
			y, x := float64(g.y0+i), float64(g.x0+j)
			v := 0.0
			for _, h := range hotSpots {
				dy, dx := y-h.y*float64(g.ny), x-h.x*float64(g.nx)
				s := h.width * w
				v += h.amp * math.Exp(-(dy*dy+dx*dx)/(2*s*s))
			}
			g.t[g.idx(i, j)] = v
		}
	}
}

// step advances the interior by one explicit finite-difference step; the
// halo of t must be current.
func (g *grid) step() {
	stride := g.lx + 2
	for i := int64(0); i < g.ly; i++ {
		for j := int64(0); j < g.lx; j++ {
			k := g.idx(i, j)
			c := g.t[k]
			g.tn[k] = c + alpha*(g.t[k-stride]+g.t[k+stride]+g.t[k-1]+g.t[k+1]-4*c)
		}
	}
	g.t, g.tn = g.tn, g.t
}

// block copies the interior of t into a contiguous row-major ly×lx slice.
func (g *grid) block() []float64 {
	out := make([]float64, 0, g.ly*g.lx)
	for i := int64(0); i < g.ly; i++ {
		out = append(out, g.row(g.t, i)...)
	}
	return out
}

// flux returns |∇T| by central differences over the interior, stored as
// float; the halo of t must be current.
func (g *grid) flux() []float32 {
	out := make([]float32, 0, g.ly*g.lx)
	stride := g.lx + 2
	for i := int64(0); i < g.ly; i++ {
		for j := int64(0); j < g.lx; j++ {
			k := g.idx(i, j)
			dy := (g.t[k+stride] - g.t[k-stride]) / 2
			dx := (g.t[k+1] - g.t[k-1]) / 2
			out = append(out, float32(math.Hypot(dx, dy)))
		}
	}
	return out
}
