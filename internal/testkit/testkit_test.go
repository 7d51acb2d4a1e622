package testkit

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

func TestGzipRoundTrip(t *testing.T) {
	const s = "id\ttags\nd1\trock,pop\n"
	zr, err := gzip.NewReader(bytes.NewReader(Gzip(t, s)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || string(got) != s {
		t.Fatalf("got %q, %v; want %q", got, err, s)
	}
}
