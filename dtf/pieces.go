package dtf

import (
	"github.com/couplet-hpc/couplet/matcher"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/transport"
)

// piece is one box of a variable and where its elements sit in memory: the box
// maps onto the block [bufStart, bufStart+box.Count) of a C-order array of
// shape bufShape held in data, in the variable's element type. A vara request
// is one piece; a strided request is one piece per strided position, all
// sharing one buffer, so subarray datatypes move every piece in place.
type piece struct {
	id       int64 // write Seq or read ID
	varid    int
	box      matcher.Box
	bufShape []int64
	bufStart []int64
	data     []byte
}

// subarrayStart returns where sub-box b of p starts inside p's buffer.
func (p *piece) subarrayStart(b matcher.Box) []int64 {
	s := make([]int64, len(b.Start))
	for d := range s {
		s[d] = p.bufStart[d] + b.Start[d] - p.box.Start[d]
	}
	return s
}

// block describes sub-box b of p in place in p's buffer, for the transport.
func (p *piece) block(esize int, b matcher.Box) transport.Block {
	return transport.Block{Buf: p.data, ElemSize: esize, Shape: p.bufShape, Start: p.subarrayStart(b), Count: b.Count}
}

// splitStrided cuts an access into pieces over data, one per combination of
// indices along the dimensions whose stride is not 1.
func splitStrided(a *nc.Access, data []byte, nextID func() int64) []*piece {
	nd := len(a.Count)
	var strided []int
	for d := 0; d < nd; d++ {
		if a.Stride != nil && a.Stride[d] != 1 && a.Count[d] > 1 {
			strided = append(strided, d)
		}
	}
	if a.Len() == 0 {
		return nil
	}
	idx := make([]int64, nd)
	var out []*piece
	for {
		p := &piece{id: nextID(), varid: a.Var, bufShape: a.Count, data: data,
			box: matcher.Box{Start: make([]int64, nd), Count: make([]int64, nd)}, bufStart: make([]int64, nd)}
		for d := 0; d < nd; d++ {
			p.box.Start[d], p.box.Count[d] = a.Start[d], a.Count[d]
		}
		for _, d := range strided {
			p.box.Start[d] = a.Start[d] + idx[d]*a.Stride[d]
			p.box.Count[d] = 1
			p.bufStart[d] = idx[d]
		}
		out = append(out, p)
		// Odometer over the strided dimensions, last fastest.
		k := len(strided) - 1
		for ; k >= 0; k-- {
			d := strided[k]
			if idx[d]++; idx[d] < a.Count[d] {
				break
			}
			idx[d] = 0
		}
		if k < 0 {
			return out
		}
	}
}

// mapped walks the elements of a count-shaped C-order array and calls f with
// each element's linear index and its offset (in elements) under imap.
func mapped(count, imap []int64, f func(lin, off int64)) {
	n := int64(1)
	for _, c := range count {
		n *= c
	}
	idx := make([]int64, len(count))
	for lin := int64(0); lin < n; lin++ {
		off := int64(0)
		for d, i := range idx {
			off += i * imap[d]
		}
		f(lin, off)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < count[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// gatherImap packs a varm buffer into C order over count.
func gatherImap(dst, src []byte, esize int, count, imap []int64) {
	mapped(count, imap, func(lin, off int64) {
		copy(dst[lin*int64(esize):(lin+1)*int64(esize)], src[off*int64(esize):])
	})
}

// scatterImap unpacks C-ordered data into a varm buffer.
func scatterImap(dst, src []byte, esize int, count, imap []int64) {
	mapped(count, imap, func(lin, off int64) {
		copy(dst[off*int64(esize):(off+1)*int64(esize)], src[lin*int64(esize):(lin+1)*int64(esize)])
	})
}

// packWrite returns the access's data in the variable's type, C order over
// Count. It aliases the user buffer when no conversion or packing is needed
// and copy is false; otherwise the result comes from alloc. A conversion
// that overflows still packs and returns ERANGE.
func packWrite(a *nc.Access, vt nc.Type, copyData bool, alloc func(int64) []byte) ([]byte, error) {
	if a.Imap == nil && a.BufType == vt && !copyData {
		return a.Buf[:a.Len()*int64(vt.Size())], nil
	}
	src := a.Buf
	if a.Imap != nil {
		src = make([]byte, a.Len()*int64(a.BufType.Size()))
		gatherImap(src, a.Buf, a.BufType.Size(), a.Count, a.Imap)
	} else {
		src = src[:a.Len()*int64(a.BufType.Size())]
	}
	out := alloc(a.Len() * int64(vt.Size()))
	return out, nc.Convert(out, vt, src, a.BufType)
}

// readTarget returns the buffer a read receives into (the user's own when
// layouts and types agree) and the step that moves it into the user's buffer.
func readTarget(a *nc.Access, vt nc.Type) (data []byte, finish func() error) {
	if a.Imap == nil && a.BufType == vt {
		return a.Buf[:a.Len()*int64(vt.Size())], func() error { return nil }
	}
	tmp := make([]byte, a.Len()*int64(vt.Size()))
	return tmp, func() error {
		dst := a.Buf
		if a.Imap != nil {
			dst = make([]byte, a.Len()*int64(a.BufType.Size()))
		}
		err := nc.Convert(dst[:a.Len()*int64(a.BufType.Size())], a.BufType, tmp, vt)
		if a.Imap != nil {
			scatterImap(a.Buf, dst, a.BufType.Size(), a.Count, a.Imap)
		}
		return err
	}
}

// fillBox writes fill into the block of p's buffer that sub-box b occupies.
func fillBox(p *piece, b matcher.Box, fill []byte) {
	esize := int64(len(fill))
	start := p.subarrayStart(b)
	nd := len(b.Count)
	idx := make([]int64, nd)
	for {
		off := int64(0)
		for d := 0; d < nd; d++ {
			off = off*p.bufShape[d] + start[d] + idx[d]
		}
		copy(p.data[off*esize:(off+1)*esize], fill)
		d := nd - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < b.Count[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
