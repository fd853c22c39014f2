package matcher

import (
	"fmt"
	"slices"
)

// Mode selects how a Partition assigns index space to matchers.
type Mode int

const (
	// ModeRange cuts each variable's index space into blocks across its
	// fixed dimensions, one block per matcher.
	ModeRange Mode = iota
	// ModeVarID gives each whole variable to matcher var % M.
	ModeVarID
)

// ParseMode parses the config spelling of a mode: "range" or "varid".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "range":
		return ModeRange, nil
	case "varid":
		return ModeVarID, nil
	}
	return 0, fmt.Errorf("matcher: unknown partition mode %q (want range or varid)", s)
}

// String returns the config spelling of m.
func (m Mode) String() string {
	if m == ModeVarID {
		return "varid"
	}
	return "range"
}

// Piece is the part of a request that one matcher handles.
type Piece struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Matcher is the matcher index in [0, M).
	Matcher int
	// Box is the part of the request inside the matcher's region.
	Box Box
}

// Partition assigns the index space of each variable to M matchers. Every
// rank that builds a Partition with the same mode, M and shapes computes the
// same assignment, so it need not be shipped.
//
// In ModeRange a variable's fixed dimensions are cut into a grid of blocks:
// the prime factors of M, largest first, each go to the dimension whose
// blocks are currently longest (and still at least one index wide), so a
// 3-D variable on 8 matchers becomes 2x2x2 blocks rather than 8 slabs. The
// unlimited (record) dimension, which must be dimension 0, is never cut: it
// has no bound to cut, and cutting it by record would send each epoch's
// record to a single matcher. Variables without fixed dimensions (scalars,
// 1-D record variables), variables whose shape was never set and boxes whose
// rank does not match the shape go whole to matcher var % M, as in
// ModeVarID. If the fixed dimensions are too small to take all M factors,
// the variable uses fewer matchers. Block numbers are rotated by the
// variable id, so many small variables still spread over all matchers.
// Coordinates outside the shape belong to the nearest edge block, so Split
// never loses an element.
//
// A partition built by NewRangePartition with a block width w instead cuts only
// the first fixed dimension of each variable, into blocks of w indices, and deals
// the blocks to the matchers in turn (block b of variable v goes to matcher
// (b+v) % M), the way DTF's iodb_range cut dimension 0.
type Partition struct {
	mode     Mode
	matchers int
	width    int64 // > 0: fixed block width along the first fixed dimension
	vars     map[int]*cut
}

// cut is the block grid of one variable.
type cut struct {
	bounds [][]int64 // per dimension: parts+1 boundaries; nil = not cut
	stride []int     // row-major strides over the block grid
}

// Unlimited marks the record dimension in a shape passed to SetShape.
const Unlimited int64 = 0

// NewPartition returns a partition over matchers (>= 1) matchers.
func NewPartition(mode Mode, matchers int) (*Partition, error) {
	if matchers < 1 {
		return nil, fmt.Errorf("matcher: partition needs at least one matcher, got %d", matchers)
	}
	if mode != ModeRange && mode != ModeVarID {
		return nil, fmt.Errorf("matcher: unknown partition mode %d", mode)
	}
	return &Partition{mode: mode, matchers: matchers, vars: map[int]*cut{}}, nil
}

// NewRangePartition returns a ModeRange partition over matchers (>= 1) matchers
// that cuts the first fixed dimension of each variable into blocks of width (>= 1)
// indices.
func NewRangePartition(matchers int, width int64) (*Partition, error) {
	if width < 1 {
		return nil, fmt.Errorf("matcher: range block width must be at least 1, got %d", width)
	}
	p, err := NewPartition(ModeRange, matchers)
	if err != nil {
		return nil, err
	}
	p.width = width
	return p, nil
}

// Matchers returns M, the number of matchers.
func (p *Partition) Matchers() int { return p.matchers }

// Mode returns the partition mode.
func (p *Partition) Mode() Mode { return p.mode }

// SetShape declares the shape of variable v. shape[0] may be Unlimited (the
// record dimension); every other entry must be positive. In ModeVarID the
// shape is accepted and ignored.
func (p *Partition) SetShape(v int, shape []int64) error {
	for k, e := range shape {
		if e < 0 || (e == Unlimited && k > 0) {
			return fmt.Errorf("matcher: variable %d: bad extent %d in dimension %d", v, e, k)
		}
	}
	if p.mode != ModeRange {
		return nil
	}
	d := len(shape)
	parts := make([]int64, d)
	for k := range parts {
		parts[k] = 1
	}
	fixed := false
	for _, e := range shape {
		fixed = fixed || e > 0
	}
	if !fixed {
		delete(p.vars, v)
		return nil
	}
	if p.width > 0 {
		p.vars[v] = widthCut(shape, p.width)
		return nil
	}
	for _, f := range primeFactors(p.matchers) {
		best := -1
		for k, e := range shape {
			if e == Unlimited || parts[k]*f > e {
				continue
			}
			// Longest block side first: e/parts[k] > e'/parts[best].
			if best < 0 || e*parts[best] > shape[best]*parts[k] {
				best = k
			}
		}
		if best >= 0 {
			parts[best] *= f
		}
	}
	c := &cut{bounds: make([][]int64, d), stride: make([]int, d)}
	s := 1
	for k := d - 1; k >= 0; k-- {
		c.stride[k] = s
		s *= int(parts[k])
		if parts[k] == 1 {
			continue
		}
		b := make([]int64, parts[k]+1)
		for i := range b {
			b[i] = splitPoint(shape[k], parts[k], int64(i))
		}
		c.bounds[k] = b
	}
	p.vars[v] = c
	return nil
}

// widthCut cuts the first fixed dimension of shape into blocks of width indices
// (the last one may be shorter).
func widthCut(shape []int64, width int64) *cut {
	d := len(shape)
	c := &cut{bounds: make([][]int64, d), stride: make([]int, d)}
	for k := range c.stride {
		c.stride[k] = 1
	}
	for k, e := range shape {
		if e == Unlimited {
			continue
		}
		n := (e + width - 1) / width
		if n > 1 {
			b := make([]int64, n+1)
			for i := range b {
				b[i] = min(int64(i)*width, e)
			}
			c.bounds[k] = b
		}
		break
	}
	return c
}

// Grid returns how many blocks variable v is cut into along each dimension,
// or nil if v goes whole to one matcher.
func (p *Partition) Grid(v int) []int64 {
	c := p.vars[v]
	if c == nil {
		return nil
	}
	g := make([]int64, len(c.bounds))
	for k, b := range c.bounds {
		g[k] = max(1, int64(len(b)-1))
	}
	return g
}

// Split cuts box b of variable v at the partition boundaries into pieces,
// one per block it touches, in row-major block order. The pieces are
// disjoint and their union is b. An empty box yields no pieces.
func (p *Partition) Split(v int, b Box) []Piece {
	var out []Piece
	p.SplitFunc(v, b, func(m int, piece Box) { out = append(out, Piece{Matcher: m, Box: piece.Clone()}) })
	return out
}

// SplitFunc calls fn with each piece of Split(v, b) and its matcher, in the
// same order, without building the pieces: piece shares memory with b or
// with storage reused for the next piece, so fn copies what it keeps (into
// storage of its own, such as one buffer for all of a matcher's pieces).
func (p *Partition) SplitFunc(v int, b Box, fn func(matcher int, piece Box)) {
	if b.Empty() {
		return
	}
	c := p.vars[v]
	if p.mode != ModeRange || c == nil || len(c.bounds) != b.Dims() {
		fn(mod(v, p.matchers), b)
		return
	}
	d := b.Dims()
	blocks := make([]int, 3*d)
	p0, p1, cur := blocks[:d], blocks[d:2*d], blocks[2*d:]
	for k := range d {
		if bd := c.bounds[k]; bd != nil {
			p0[k] = blockOf(bd, b.Start[k])
			p1[k] = blockOf(bd, b.End(k)-1)
		}
	}
	copy(cur, p0)
	buf := make([]int64, 2*d)
	pc := Box{Start: buf[:d:d], Count: buf[d:]}
	for {
		copy(pc.Start, b.Start)
		copy(pc.Count, b.Count)
		blk := 0
		for k := range d {
			blk += cur[k] * c.stride[k]
			bd := c.bounds[k]
			if bd == nil {
				continue
			}
			lo, hi := b.Start[k], b.End(k)
			if cur[k] > 0 {
				lo = max(lo, bd[cur[k]])
			}
			if cur[k] < len(bd)-2 {
				hi = min(hi, bd[cur[k]+1])
			}
			pc.Start[k], pc.Count[k] = lo, hi-lo
		}
		fn((blk+mod(v, p.matchers))%p.matchers, pc)
		k := d - 1
		for ; k >= 0; k-- {
			if cur[k] < p1[k] {
				cur[k]++
				break
			}
			cur[k] = p0[k]
		}
		if k < 0 {
			return
		}
	}
}

// blockOf returns the block of bounds that holds x; coordinates outside
// the shape go to the edge blocks.
func blockOf(bounds []int64, x int64) int {
	// First boundary after x, among the inner ones.
	i, _ := slices.BinarySearch(bounds[1:len(bounds)-1], x+1)
	return i
}

// splitPoint returns the i-th of parts+1 boundaries evenly dividing [0,e),
// i*e/parts without overflow.
func splitPoint(e, parts, i int64) int64 {
	return i*(e/parts) + i*(e%parts)/parts
}

// primeFactors returns the prime factors of n, largest first.
func primeFactors(n int) []int64 {
	var f []int64
	for q := 2; q*q <= n; q++ {
		for n%q == 0 {
			f = append(f, int64(q))
			n /= q
		}
	}
	if n > 1 {
		f = append(f, int64(n))
	}
	slices.Reverse(f)
	return f
}

// mod is the non-negative remainder of a/m.
func mod(a, m int) int {
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}
