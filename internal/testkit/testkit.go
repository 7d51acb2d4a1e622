// Package testkit holds small helpers shared by the tests of several packages.
package testkit

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Gzip returns s compressed with gzip, failing the test on an error.
func Gzip(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// PeakRSS returns the process's peak resident set size in bytes (VmHWM of
// /proc/self/status), after resetting the peak to the current size when
// reset is true (Linux 4.0 or later); it skips the test where either is not
// available.
func PeakRSS(t testing.TB, reset bool) int64 {
	t.Helper()
	if reset {
		// "5" resets the peak to the current RSS.
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Skipf("cannot reset the peak RSS: %v", err)
		}
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// SmallTSV is a small corpus in the TSV format: 60 documents of 3 to 5 tags
// drawn from three themes (rock, jazz, folk; "guitar" is in two of them).
func SmallTSV() []byte {
	themes := [][]string{
		{"rock", "guitar", "loud", "drums", "electric"},
		{"jazz", "piano", "smooth", "saxophone", "bass"},
		{"folk", "acoustic", "guitar", "banjo", "calm"},
	}
	var b strings.Builder
	for i := 0; i < 60; i++ {
		th := themes[i%3]
		fmt.Fprintf(&b, "d%02d", i)
		n := 3 + i%3
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "\t%s", th[(i+j)%len(th)])
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}
