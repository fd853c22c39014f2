package gmac

import "golang.org/x/sys/cpu"

// wide is true where ghashWide runs: AVX-512 (foundation and byte instructions) with
// the 512-bit carry-less multiply.
var wide = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VPCLMULQDQ &&
	cpu.X86.HasAVX && cpu.X86.HasPCLMULQDQ

// ghashWide folds the n bytes at p (a multiple of 16) into y: 512 bytes per step
// against pow, the rest (a file's last chunk's tail) one block at a time against H
// (pow[powers-1]).
//
//go:noescape
func ghashWide(y *elem, pow *[powers]elem, p *byte, n int)
