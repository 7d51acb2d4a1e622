package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.tlm")
	if err := WriteBytes(path, 0o644, []byte("old")); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old content and no temporary file.
	_, err := Write(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("the writer's error was lost")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write: %q, want the old content", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
	n, err := Write(path, 0o640, func(w io.Writer) error { _, err := w.Write([]byte("new content")); return err })
	if err != nil || n != 11 {
		t.Fatalf("write: %d bytes, %v", n, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode: %v, %v; want 0640", fi.Mode(), err)
	}
}

func TestRemoveLeftovers(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{".m.tlm.tmp-123", ".report.json.tmp-9", "m.tlm", ".hidden", "a.tmp-1"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, err := RemoveLeftovers(dir)
	if err != nil || n != 2 {
		t.Fatalf("removed %d, %v; want 2", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if len(left) != 3 {
		t.Errorf("left %v, want m.tlm, .hidden and a.tmp-1", left)
	}
	if n, err := RemoveLeftovers(filepath.Join(dir, "missing")); n != 0 || err != nil {
		t.Errorf("missing directory: %d, %v", n, err)
	}
}
