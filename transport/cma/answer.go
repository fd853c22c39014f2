package cma

// Answers a reader sends back for a descriptor, over whatever carries the
// descriptor: after any of them the owner may reuse its buffer.
const (
	AnswerRead     = 1 // read
	AnswerRefused  = 2 // the kernel refused the read (ErrRefused)
	AnswerFailed   = 3 // the read failed otherwise (sizes differ, bad address)
	AnswerDeclined = 4 // the reader gave the block up (a canceled receive)
)
