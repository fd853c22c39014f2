package gmac

// mul returns a*b*x reduced: with b a power of the key times x^-1, a times that power.
// It is the model of gmac_amd64.s, which takes the same steps on 32 blocks at once.
func (a elem) mul(b elem) elem {
	lo := clmul(a[0], b[0])
	hi := clmul(a[1], b[1])
	m1, m2 := clmul(a[0], b[1]), clmul(a[1], b[0])
	mi := elem{m1[0] ^ m2[0], m1[1] ^ m2[1]}
	// Fold the low half (the highest coefficients) into the middle, then the middle
	// into the high half: x^128 = x^7 + x^2 + x + 1.
	t := clmul(lo[0], poly)
	mi[0] ^= lo[1] ^ t[0]
	mi[1] ^= lo[0] ^ t[1]
	t = clmul(mi[0], poly)
	return elem{hi[0] ^ mi[1] ^ t[0], hi[1] ^ mi[0] ^ t[1]}
}

// clmul is the carry-less product of a and b.
func clmul(a, b uint64) elem {
	var r elem
	for i := range 64 {
		if b>>i&1 != 0 {
			r[0] ^= a << i
			if i > 0 {
				r[1] ^= a >> (64 - i)
			}
		}
	}
	return r
}
