package main

import (
	"math"
	"strings"
	"testing"
)

// FuzzReadVectors feeds arbitrary text to the reader of `taglens tsne`: it
// returns an error or rows of one width holding finite numbers only, and an
// error message quotes at most a short excerpt of the input.
// Run: go test ./cmd/taglens -run '^$' -fuzz FuzzReadVectors -fuzztime 10m.
func FuzzReadVectors(f *testing.F) {
	f.Add("1\t2\t3\n4\t5\t6\n")
	f.Add("1e308\t-1e308\n\n0\t0\r\n")
	f.Add("NaN\t1\n")
	f.Add("1\t2\n3\n")
	f.Add(" 1 \t 2\n")
	f.Fuzz(func(t *testing.T, in string) {
		x, err := readVectors(strings.NewReader(in))
		if err != nil {
			if len(err.Error()) > 300 {
				t.Fatalf("error message of %d bytes", len(err.Error()))
			}
			return
		}
		for i, row := range x {
			if len(row) != len(x[0]) {
				t.Fatalf("row %d has %d values, row 0 has %d", i, len(row), len(x[0]))
			}
			for _, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("row %d holds %v", i, v)
				}
			}
		}
	})
}
