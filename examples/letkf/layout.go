package letkf

import (
	"fmt"
	"path/filepath"
)

// Box is a block of a member's domain, indexed (k, j, i) as the variables
// are, stored in row-major order.
type Box struct{ Start, Count [3]int64 }

// Len returns the number of points in b.
func (b Box) Len() int64 { return b.Count[0] * b.Count[1] * b.Count[2] }

// StartSlice returns Start as PnetCDF wants it.
func (b Box) StartSlice() []int64 { return b.Start[:] }

// CountSlice returns Count as PnetCDF wants it.
func (b Box) CountSlice() []int64 { return b.Count[:] }

// Each calls fn for every point of b with its position n in the buffer.
func (b Box) Each(fn func(n int, k, j, i int64)) {
	n := 0
	for k := b.Start[0]; k < b.Start[0]+b.Count[0]; k++ {
		for j := b.Start[1]; j < b.Start[1]+b.Count[1]; j++ {
			for i := b.Start[2]; i < b.Start[2]+b.Count[2]; i++ {
				fn(n, k, j, i)
				n++
			}
		}
	}
}

// Point returns the coordinates of buffer position n.
func (b Box) Point(n int) (k, j, i int64) {
	x := int64(n)
	i = b.Start[2] + x%b.Count[2]
	x /= b.Count[2]
	j = b.Start[1] + x%b.Count[1]
	k = b.Start[0] + x/b.Count[1]
	return k, j, i
}

// String formats b as start+count.
func (b Box) String() string { return fmt.Sprintf("%v+%v", b.Start, b.Count) }

// Grid returns the process grid (rows py by columns px) of a member with
// size ranks: spec "PYxPX" if given, else the most square factorisation
// with px >= py.
func Grid(size int, spec string) (py, px int, err error) {
	if spec != "" {
		if _, err := fmt.Sscanf(spec, "%dx%d", &py, &px); err != nil || py < 1 || px < 1 {
			return 0, 0, fmt.Errorf("process grid %q: want PYxPX", spec)
		}
		if py*px != size {
			return 0, 0, fmt.Errorf("process grid %s has %d ranks, the member has %d", spec, py*px, size)
		}
		return py, px, nil
	}
	py = 1
	for d := 1; d*d <= size; d++ {
		if size%d == 0 {
			py = d
		}
	}
	return py, size / py, nil
}

// Domain returns a member's global (k, j, i) extent for a py x px grid of
// kmax x jmax x imax blocks.
func Domain(py, px int, imax, jmax, kmax int64) [3]int64 {
	return [3]int64{kmax, jmax * int64(py), imax * int64(px)}
}

// SimBlock returns the block of member rank r on a py x px grid: rows of
// the grid run along j, columns along i, every block has all k levels.
func SimBlock(r, px int, imax, jmax, kmax int64) Box {
	pj, pi := int64(r/px), int64(r%px)
	return Box{Start: [3]int64{0, pj * jmax, pi * imax}, Count: [3]int64{kmax, jmax, imax}}
}

// Slab returns slab s of g: a run of whole j rows of the domain, all k and
// i, with uneven splits spread evenly.
func Slab(s, g int, dom [3]int64) Box {
	j0 := int64(s) * dom[1] / int64(g)
	j1 := int64(s+1) * dom[1] / int64(g)
	return Box{Start: [3]int64{0, j0, 0}, Count: [3]int64{dom[0], j1 - j0, dom[2]}}
}

// HistPath is member m's history file of cycle c under dir.
func HistPath(dir string, m, c int) string {
	return filepath.Join(MemberDir(dir, m), fmt.Sprintf("c%04d.hist.nc", c))
}

// AnalPath is member m's analysis file of cycle c under dir.
func AnalPath(dir string, m, c int) string {
	return filepath.Join(MemberDir(dir, m), fmt.Sprintf("c%04d.anal.nc", c))
}

// MemberDir is member m's directory under dir.
func MemberDir(dir string, m int) string { return filepath.Join(dir, fmt.Sprintf("m%03d", m)) }

// HistVar names variable v of the history file.
func HistVar(v int) string { return fmt.Sprintf("hist%03d", v) }

// AnalVar names variable v of the analysis file.
func AnalVar(v int) string { return fmt.Sprintf("anal%03d", v) }
