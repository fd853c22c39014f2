package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestFileWriter: the writer stage writes every piece in order and hands each on once
// written; a failed write is reported and the pieces still reach the next stage.
func TestFileWriter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		readOnly bool
		pieces   int
	}{
		{"writes in order", false, 40},
		{"write fails", true, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			flag := os.O_WRONLY
			if tc.readOnly {
				flag = os.O_RDONLY
			}
			f, err := os.OpenFile(p, flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var handed, want []byte
			w := startFileWriter(f, func(b []byte) { handed = append(handed, b...) })
			for i := range tc.pieces {
				b := bytes.Repeat([]byte{byte(i)}, 1000+i)
				want = append(want, b...)
				w.Write(b)
			}
			err = w.Close()
			if !bytes.Equal(handed, want) {
				t.Fatalf("handed on %d bytes, want the %d written, in order", len(handed), len(want))
			}
			if tc.readOnly {
				if err == nil {
					t.Fatal("a write to a read-only file: Close returned nil")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(p)
			if !bytes.Equal(got, want) {
				t.Fatalf("file holds %d bytes, want %d in order", len(got), len(want))
			}
		})
	}
}
