package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputCheckedFirst: every command that writes a file or a folder
// checks it before it reads any input. Each case names inputs that do not
// exist either: the error must be about the output (the input was never
// opened), come with exit status 1, and be the only thing on stderr (no
// progress line before it). Before, `train --out /nonexistent/t.tlm` trained
// to the end and then failed on its temporary file; the same with --out
// naming a folder, `eval --json /nonexistent/x.json` and `tsne --out
// /nonexistent/p.tsv`.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "a-folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		noCorpus = "/nonexistent/in/docs.tsv"
		noModel  = "/nonexistent/in/m.tlm"
	)
	// A real corpus, so that the case without a nonexistent input shows the
	// check comes before reading and training, not merely before failing.
	good := filepath.Join(dir, "good.tsv")
	if err := os.WriteFile(good, []byte("a\trock\tguitar\nb\tjazz\tpiano\nc\trock\tjazz\nd\tfolk\tguitar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := "the folder /nonexistent does not exist"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"train --out /nonexistent", []string{"train", "--corpus", noCorpus, "--out", "/nonexistent/t.tlm"}, "--out /nonexistent/t.tlm: " + missing},
		{"train --out folder", []string{"train", "--corpus", noCorpus, "--out", folder}, "--out " + folder + ": is a folder"},
		{"train --out folder, real corpus", []string{"train", "--corpus", good, "--out", folder}, "--out " + folder + ": is a folder"},
		{"train --json /nonexistent", []string{"train", "--corpus", noCorpus, "--out", filepath.Join(dir, "t.tlm"), "--json", "/nonexistent/t.json"}, "--json /nonexistent/t.json: " + missing},
		{"train --cpuprofile folder", []string{"train", "--corpus", noCorpus, "--out", filepath.Join(dir, "t.tlm"), "--cpuprofile", folder}, "--cpuprofile " + folder + ": is a folder"},
		{"eval --json /nonexistent", []string{"eval", "--model", noModel, "--corpus", noCorpus, "--subset", "test", "--json", "/nonexistent/x.json"}, "--json /nonexistent/x.json: " + missing},
		{"eval --json folder", []string{"eval", "--model", noModel, "--corpus", noCorpus, "--subset", "test", "--oov", "/nonexistent/oov.txt", "--json", folder}, "--json " + folder + ": is a folder"},
		{"tsne --out /nonexistent", []string{"tsne", "--in", "/nonexistent/in/v.tsv", "--out", "/nonexistent/p.tsv"}, "--out /nonexistent/p.tsv: " + missing},
		{"tsne --out folder", []string{"tsne", "--in", "/nonexistent/in/v.tsv", "--out", folder}, "--out " + folder + ": is a folder"},
		{"export --out under a file", []string{"export", "--model", noModel, "--corpus", noCorpus, "--out", filepath.Join(file, "dir", "sub")}, "--out " + filepath.Join(file, "dir", "sub") + ": " + file + " is not a folder"},
		{"export --out file", []string{"export", "--model", noModel, "--corpus", noCorpus, "--out", file}, "--out " + file + ": is a file, not a folder"},
		{"stats --json=/nonexistent", []string{"stats", "--corpus", noCorpus, "--json=/nonexistent/s.json"}, "--json /nonexistent/s.json: " + missing},
		{"stats --json=folder", []string{"stats", "--corpus", noCorpus, "--json=" + folder}, "--json " + folder + ": is a folder"},
		{"report --out /nonexistent", []string{"report", "--in", "/nonexistent/in", "--out", "/nonexistent/r.md"}, "--out /nonexistent/r.md: " + missing},
		{"report --charts file", []string{"report", "--in", "/nonexistent/in", "--out", filepath.Join(dir, "r.md"), "--charts", file}, "--charts " + file + ": is a file, not a folder"},
		{"report --charts under a file", []string{"report", "--in", "/nonexistent/in", "--out", filepath.Join(dir, "r.md"), "--charts", filepath.Join(file, "c")}, file + " is not a folder"},
		{"suite --out folder", []string{"suite", "--in", "/nonexistent/in", "--out", folder}, "--out " + folder + ": is a folder"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tc.args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 1 {
				t.Errorf("exit status %d, want 1 (%v)", code, err)
			}
			msg := stderr.String()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("stderr %q lacks %q", msg, tc.want)
			}
			if lines := strings.Count(strings.TrimSpace(msg), "\n") + 1; lines != 1 {
				t.Errorf("stderr has %d lines, want the error alone:\n%s", lines, msg)
			}
			if strings.Contains(msg, "/nonexistent/in") {
				t.Errorf("the error is about an input, not the output: %s", msg)
			}
		})
	}
	entries, _ := os.ReadDir(folder)
	if len(entries) > 0 {
		t.Errorf("files left in the output folder: %v", entries)
	}
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".taglens-probe-") {
			t.Errorf("probe file left: %s", e.Name())
		}
	}
}
