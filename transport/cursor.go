package transport

// A RunCursor walks the contiguous runs of a block's sub-block in C order
// from any byte of its packed stream, as EachRun does from the start, but
// one step at a time and without allocating per run: two cursors pair the
// runs of two blocks of different layouts. Every run of a block has the
// same length.
type RunCursor struct {
	b    Block
	k    int     // the dimension where rows start (rowDim)
	row  int64   // bytes per run
	idx  []int64 // index of the current run's first element
	base int64   // byte offset in b.Buf of the current run
	in   int64   // bytes of the current run already passed
}

// NewRunCursor returns a cursor at byte pos of b's packed sub-block, which
// must hold more than pos bytes. Only the layout is read (b.Buf may be
// nil); the caller validates it first.
func NewRunCursor(b Block, pos int64) *RunCursor {
	k, row := rowDim(b)
	c := &RunCursor{b: b, k: k, row: row, idx: append([]int64(nil), b.Start...), in: pos % row}
	// Run pos/row as an index over the dimensions before k, last fastest.
	j := pos / row
	for i := k - 1; i >= 0; i-- {
		c.idx[i] = b.Start[i] + j%b.Count[i]
		j /= b.Count[i]
	}
	c.base = offset(b, c.idx)
	return c
}

// Run returns the offset in b.Buf of the cursor's byte and how many bytes
// of its run follow it, that byte included.
func (c *RunCursor) Run() (off, n int64) { return c.base + c.in, c.row - c.in }

// Skip moves the cursor n bytes on, at most to the end of its run (from
// where it goes to the start of the next).
func (c *RunCursor) Skip(n int64) {
	if c.in += n; c.in < c.row {
		return
	}
	c.in = 0
	for i := c.k - 1; i >= 0; i-- {
		if c.idx[i]++; c.idx[i] < c.b.Start[i]+c.b.Count[i] {
			break
		}
		c.idx[i] = c.b.Start[i]
	}
	c.base = offset(c.b, c.idx)
}
