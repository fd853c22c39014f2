package main

import (
	"fmt"

	"github.com/couplet-hpc/couplet/mpi"
)

// grid is this rank's block of the global ny×nx field on a py×px process
// grid, stored with one halo cell on every side.
type grid struct {
	comm           mpi.Comm
	nx, ny         int64 // global size
	px, py         int   // process grid
	cx, cy         int   // this rank's coordinates in it
	x0, y0, lx, ly int64 // this rank's block
	t, tn          []float64
	nbr            [4]int // ranks of the north, south, west, east neighbours; -1 at the boundary
	colOut, colIn  [2][]float64
}

// Directions of nbr, also the halo message tags (a message travelling
// north carries tag north).
const (
	north = iota
	south
	west
	east
)

// procGrid factors n ranks into py rows × px columns, as square as possible.
func procGrid(n int) (py, px int) {
	py = 1
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			py = d
		}
	}
	return py, n / py
}

// split returns the start and length of part i of n items cut into p parts
// whose sizes differ by at most one.
func split(n int64, p, i int) (int64, int64) {
	lo := n * int64(i) / int64(p)
	hi := n * int64(i+1) / int64(p)
	return lo, hi - lo
}

// newGrid lays this rank's block out on comm.
func newGrid(comm mpi.Comm, ny, nx int64) (*grid, error) {
	size, rank := comm.Size(), comm.Rank()
	g := &grid{comm: comm, nx: nx, ny: ny}
	g.py, g.px = procGrid(size)
	if int64(g.py) > ny || int64(g.px) > nx {
		return nil, fmt.Errorf("grid %dx%d is too small for %dx%d processes", ny, nx, g.py, g.px)
	}
	g.cy, g.cx = rank/g.px, rank%g.px
	g.y0, g.ly = split(ny, g.py, g.cy)
	g.x0, g.lx = split(nx, g.px, g.cx)
	at := func(cy, cx int) int {
		if cy < 0 || cy >= g.py || cx < 0 || cx >= g.px {
			return -1
		}
		return cy*g.px + cx
	}
	g.nbr = [4]int{at(g.cy-1, g.cx), at(g.cy+1, g.cx), at(g.cy, g.cx-1), at(g.cy, g.cx+1)}
	n := (g.ly + 2) * (g.lx + 2)
	g.t, g.tn = make([]float64, n), make([]float64, n)
	for i := range g.colOut {
		g.colOut[i], g.colIn[i] = make([]float64, g.ly), make([]float64, g.ly)
	}
	return g, nil
}

// idx is the storage index of local interior cell (i, j), 0-based; the
// halo is at i = -1, ly and j = -1, lx.
func (g *grid) idx(i, j int64) int64 { return (i+1)*(g.lx+2) + j + 1 }

// row returns local row i (interior columns only).
func (g *grid) row(t []float64, i int64) []float64 {
	s := g.idx(i, 0)
	return t[s : s+g.lx]
}

// exchange fills the halo of t from the neighbours. Halo cells on the global
// boundary are never written and stay zero: the Dirichlet condition.
func (g *grid) exchange() error {
	var reqs []*mpi.Request
	post := func(q *mpi.Request, err error) error {
		if err != nil {
			return fmt.Errorf("halo exchange: %w", err)
		}
		reqs = append(reqs, q)
		return nil
	}
	// Receives first; a message travelling dir arrives with tag dir.
	recvs := []struct {
		from int
		buf  []float64
		tag  int
	}{
		{g.nbr[north], g.row(g.t, -1), south},
		{g.nbr[south], g.row(g.t, g.ly), north},
		{g.nbr[west], g.colIn[0], east},
		{g.nbr[east], g.colIn[1], west},
	}
	for _, r := range recvs {
		if r.from >= 0 {
			if err := post(mpi.Irecv(g.comm, r.buf, r.from, r.tag)); err != nil {
				return err
			}
		}
	}
	for i := int64(0); i < g.ly; i++ {
		g.colOut[0][i] = g.t[g.idx(i, 0)]
		g.colOut[1][i] = g.t[g.idx(i, g.lx-1)]
	}
	sends := []struct {
		to  int
		buf []float64
		tag int
	}{
		{g.nbr[north], g.row(g.t, 0), north},
		{g.nbr[south], g.row(g.t, g.ly-1), south},
		{g.nbr[west], g.colOut[0], west},
		{g.nbr[east], g.colOut[1], east},
	}
	for _, s := range sends {
		if s.to >= 0 {
			if err := post(mpi.Isend(g.comm, s.buf, s.to, s.tag)); err != nil {
				return err
			}
		}
	}
	if err := mpi.Waitall(reqs); err != nil {
		return fmt.Errorf("halo exchange: %w", err)
	}
	for i := int64(0); i < g.ly; i++ {
		if g.nbr[west] >= 0 {
			g.t[g.idx(i, -1)] = g.colIn[0][i]
		}
		if g.nbr[east] >= 0 {
			g.t[g.idx(i, g.lx)] = g.colIn[1][i]
		}
	}
	return nil
}
