package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStatsCommand(t *testing.T) {
	// 4 documents, tags by hand: rock 3, jazz 2, guitar 1, sad 1; cardinalities 1,2,2,3.
	tsv := writeTemp(t, "docs.tsv", "a\trock\tguitar\tsad\nb\trock\tjazz\nc\tjazz\trock\nd\trock\ne\n")
	jsonl := writeTemp(t, "c.jsonl", `{"id":"a","tags":["rock","guitar","sad"]}`+"\n"+`{"id":"b","tags":["rock","jazz"]}`+"\n")

	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"stats", "--corpus", tsv, "--top", "2"}, &stdout, &stderr); err != nil {
		t.Fatalf("stats: %v (stderr %s)", err, stderr.String())
	}
	for _, want := range []string{"documents   4 (1 without tags dropped)", "tags        4 (2 used by one document only)",
		"tags/doc    mean 2.00, median 2, min 1, max 3", "top 2 tags", "rock", "jazz", `line 5: document "e" has no tags (dropped)`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "guitar") {
		t.Errorf("--top 2 listed a third tag:\n%s", stdout.String())
	}

	stdout.Reset()
	if err := run(context.Background(), []string{"stats", "--corpus", jsonl, "--json"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Docs        int    `json:"docs"`
		Format      string `json:"format"`
		Cardinality []int  `json:"cardinality"`
		TagUse      []struct {
			Tag   string `json:"tag"`
			Count int    `json:"count"`
		} `json:"tag_use"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout.String())
	}
	if got.Docs != 2 || got.Format != "jsonl" || len(got.Cardinality) != 4 || got.Cardinality[2] != 1 || got.Cardinality[3] != 1 ||
		got.TagUse[0].Tag != "rock" || got.TagUse[0].Count != 2 {
		t.Errorf("got %+v, want 2 jsonl docs, cardinality [0 0 1 1], rock used twice", got)
	}

	// --tag-sep and --labels reach the parser.
	spaced := writeTemp(t, "so.csv", "id,tags\nq1,python pandas\nq2,go\n")
	arff := writeTemp(t, "m.arff", "@relation r\n@attribute a {0,1}\n@attribute b numeric\n@data\n1,1\n0,1\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--corpus", spaced, "--tag-sep", " "}, "tags        3 "},
		{[]string{"--corpus", arff, "--labels", "a, b"}, "tags        2 "},
		{[]string{"--corpus", arff, "--labels", writeTemp(t, "m.xml", `<labels><label name="b"></label></labels>`)}, "tags        1 "},
	} {
		stdout.Reset()
		if err := run(context.Background(), append([]string{"stats"}, tc.args...), &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, stdout.String())
		}
	}

	out := filepath.Join(t.TempDir(), "s.json")
	stdout.Reset()
	if err := run(context.Background(), []string{"stats", "--corpus", tsv, "--json=" + out}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || !json.Valid(b) || stdout.Len() != 0 {
		t.Errorf("--json=FILE: file %q (%v), stdout %q", b, err, stdout.String())
	}
}

func TestStatsCommandErrors(t *testing.T) {
	bad := writeTemp(t, "bad.tsv", "a\trock\nb\tja\xffzz\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no corpus", []string{"stats"}, 2, "flag -corpus is required"},
		{"bad format", []string{"stats", "--corpus", bad, "--format", "xml"}, 2, "unknown format"},
		{"not utf8", []string{"stats", "--corpus", bad}, 1, "line 2: not UTF-8 at byte 11"},
		{"missing file", []string{"stats", "--corpus", filepath.Join(t.TempDir(), "nope.tsv")}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tc.args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
				t.Errorf("got exit %d, stderr %q; want %d containing %q", code, stderr.String(), tc.code, tc.msg)
			}
		})
	}
}
