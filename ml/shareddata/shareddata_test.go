package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFileFindsMtgJamendo(t *testing.T) {
	p := File(t, "mtg-jamendo", "docs.tsv")
	if filepath.Base(p) != "docs.tsv" {
		t.Fatalf("got %q, want a docs.tsv path", p)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("File returned %q, which does not exist: %v", p, err)
	}
}

func TestEnvOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	got, ok := Root()
	if got != dir || !ok {
		t.Fatalf("got (%q, %v), want (%q, true)", got, ok, dir)
	}
	t.Setenv(EnvVar, filepath.Join(dir, "absent"))
	if _, ok := Root(); ok {
		t.Fatalf("an absent override reported as present")
	}
}
