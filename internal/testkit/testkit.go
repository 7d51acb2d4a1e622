// Package testkit holds small helpers shared by the tests of several packages.
package testkit

import (
	"bytes"
	"compress/gzip"
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
