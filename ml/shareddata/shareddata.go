// Package shareddata locates the real tag corpora that live beside the project in
// ../shared/data (see that folder's README.md). Tests and benchmarks call Dir or File
// and are skipped, with a message saying where the data was looked for, when it is absent.
// The corpora are never copied into the project.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar overrides the data folder (the folder that holds mtg-jamendo/, cal500/, ...).
const EnvVar = "TAGLENS_SHARED_DATA"

// Root returns the shared data folder and whether it exists. It is $TAGLENS_SHARED_DATA
// when set, else ../shared/data next to the module root (the folder holding go.mod),
// found by walking up from the working directory.
func Root() (string, bool) {
	if d := os.Getenv(EnvVar); d != "" {
		return d, isDir(d)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(filepath.Dir(dir), "shared", "data")
			return d, isDir(d)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Dir returns the folder of one corpus (e.g. "mtg-jamendo"), or skips tb when it is absent.
func Dir(tb testing.TB, corpus string) string {
	tb.Helper()
	root, ok := Root()
	d := filepath.Join(root, corpus)
	if !ok || !isDir(d) {
		tb.Skipf("shared data %q not found (looked in %q; set %s to override)", corpus, root, EnvVar)
	}
	return d
}

// File returns the path of a file of one corpus (e.g. "mtg-jamendo", "split.tsv"),
// or skips tb when it is absent.
func File(tb testing.TB, corpus, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb, corpus), name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data file %s not found", p)
	}
	return p
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
