//go:build !amd64

package gmac

// wide is false: only amd64 has the wide GHASH.
const wide = false

func ghashWide(y *elem, pow *[powers]elem, p *byte, n int) { panic("gmac: no wide GHASH") }
