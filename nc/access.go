package nc

// Access is one hyperslab request on a variable: the normalised form that every
// put/get family (var, var1, vara, vars, varm, varn) reduces to once validated.
type Access struct {
	Var     int     // variable id
	Start   []int64 // first index per dimension
	Count   []int64 // elements per dimension
	Stride  []int64 // index step per dimension; nil means all ones
	Imap    []int64 // buffer element step per dimension (varm); nil means C order over Count
	Buf     []byte  // the user's memory: native-endian elements of BufType
	BufType Type    // element type of Buf; may differ from the variable's type
}

// Len returns the number of elements the access moves.
func (a *Access) Len() int64 {
	n := int64(1)
	for _, c := range a.Count {
		n *= c
	}
	return n
}
