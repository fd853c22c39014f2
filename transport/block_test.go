package transport

import (
	"math"
	"strings"
	"testing"
)

func TestBlockValidate(t *testing.T) {
	buf := make([]byte, 4*3*5*8)
	tests := []struct {
		name  string
		b     Block
		bytes int64
		err   string // substring of the error, "" for none
	}{
		{"whole", Block{buf, 8, []int64{4, 3, 5}, []int64{0, 0, 0}, []int64{4, 3, 5}}, 480, ""},
		{"inner", Block{buf, 8, []int64{4, 3, 5}, []int64{1, 1, 2}, []int64{2, 2, 3}}, 96, ""},
		{"empty", Block{buf, 8, []int64{4, 3, 5}, []int64{4, 0, 0}, []int64{0, 3, 5}}, 0, ""},
		{"scalar", Block{buf[:4], 4, nil, nil, nil}, 4, ""},
		{"dims", Block{buf, 8, []int64{4, 3, 5}, []int64{0, 0}, []int64{4, 3, 5}}, 0, "dims"},
		{"elem size", Block{buf, 0, []int64{4}, []int64{0}, []int64{4}}, 0, "element size"},
		{"past end", Block{buf, 8, []int64{4, 3, 5}, []int64{0, 2, 0}, []int64{4, 2, 5}}, 0, "outside shape 3 along dim 1"},
		{"negative start", Block{buf, 8, []int64{4}, []int64{-1}, []int64{1}}, 0, "outside"},
		{"negative count", Block{buf, 8, []int64{4}, []int64{1}, []int64{-1}}, 0, "outside"},
		{"start+count overflow", Block{buf, 8, []int64{4}, []int64{3}, []int64{math.MaxInt64}}, 0, "outside"},
		{"short buffer", Block{buf[:479], 8, []int64{4, 3, 5}, []int64{0, 0, 0}, []int64{1, 1, 1}}, 0, "needs 480"},
		{"shape overflow", Block{buf, 8, []int64{1 << 40, 1 << 40}, []int64{0, 0}, []int64{1, 1}}, 0, "overflows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.b.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := tc.b.Bytes(); got != tc.bytes {
					t.Fatalf("Bytes = %d, want %d", got, tc.bytes)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Validate = %v, want an error containing %q", err, tc.err)
			}
		})
	}
}
