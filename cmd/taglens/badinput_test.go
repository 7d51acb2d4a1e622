package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

func gzipString(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBadInputCLI runs the commands on bad corpora, split files and flags. Each
// must fail with the right exit status (1 for bad input, 2 for bad usage) and a
// message naming the file's line (when there is one) and the reason, and must
// write no output file.
// Kept in one function: it is table-driven, one long table of cases and a short
// loop over it.
func TestBadInputCLI(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	matrix := func(row int, cells string) []byte {
		lines := []string{"id,rock,jazz,pop,folk", "d1,1,0,0,1", "d2,0,1,0,0", "d3,0,0,1,0", "d4,1,0,0,1", "d5,0,1,0,0", "d6,0,0,1,1"}
		lines[row] = cells
		return []byte(strings.Join(lines, "\n") + "\n")
	}
	goodTSV := "a\trock\tguitar\nb\tjazz\tpiano\nc\trock\tjazz\nd\tfolk\tguitar\n"
	gz := gzipString(t, goodTSV)
	damaged := append([]byte(nil), gz...)
	damaged[len(damaged)-6] ^= 0xff
	many := "a\tx\nb"
	for i := range corpus.DefaultMaxTagsPerDoc + 1 {
		many += "\tt" + strconv.Itoa(i)
	}
	good := file("good.tsv", []byte(goodTSV))
	out := filepath.Join(dir, "never.model")

	type tc struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}
	stats := func(name string, content []byte, extra ...string) []string {
		return append([]string{"stats", "--corpus", file(name, content)}, extra...)
	}
	train := func(extra ...string) []string {
		return append([]string{"train", "--corpus", good, "--out", out}, extra...)
	}
	nsplit := 0
	split := func(content string) []string {
		nsplit++
		return train("--split", file("split"+strconv.Itoa(nsplit)+".tsv", []byte(content)))
	}
	cases := []tc{
		// Corpora (taglens stats; every command reads them with corpus.ReadFile).
		{"matrix with a 2", stats("m1.csv", matrix(3, "d3,0,0,2,0")), 1,
			[]string{"m1.csv: line 4:", "0/1 label matrix", `column "pop"`, `cell "2" is not 0 or 1`, "choose the format explicitly"}},
		{"ragged matrix row", stats("m2.csv", matrix(5, "d5,0,1")), 1, []string{"line 6:", "this row has 3 cells", "choose the format explicitly"}},
		{"matrix with a 2, --format matrix", stats("m3.csv", matrix(3, "d3,0,0,2,0"), "--format", "matrix"), 1,
			[]string{`line 4: column "pop": cell "2" is not 0 or 1`}},
		{"matrix with a 2, train", append(train(), "--corpus", file("m4.csv", matrix(2, "d2,0,2,0,0"))), 1,
			[]string{"m4.csv: line 3:", `column "jazz"`, "choose the format explicitly"}},
		{"small matrix with a 0.5", stats("m5.csv", []byte("rock,jazz,pop,folk\n1,0,0,1\n0,1,0,0.5\n")), 1,
			[]string{"m5.csv: line 3:", `the cell 0.5 in column 4 ("folk") is not 0 or 1: a label matrix holds 0 or 1`}},
		{"small ragged matrix", stats("m6.csv", []byte("rock,jazz,pop\n1,0,1\n\n0,1\n")), 1, []string{"m6.csv: line 4:", "row 2 has 2 cells, the header 3"}},
		{"gzip checksum", stats("c1.tsv.gz", damaged), 1, []string{"c1.tsv.gz: gzip: checksum mismatch"}},
		{"gzip truncated", stats("c2.tsv.gz", gz[:len(gz)-9]), 1, []string{"gzip: the stream is truncated"}},
		{"gzip of a NUL byte", stats("c3.gz", gzipString(t, "a\tb\nc\td\x00\n")), 1, []string{"line 2:", "NUL byte"}},
		{"bzip2", stats("c4.bz2", []byte("BZh91AY&SY")), 1, []string{"bzip2-compressed; only gzip is read"}},
		{"empty file", stats("e1.tsv", nil), 1, []string{"empty corpus: no documents"}},
		{"only blank lines", stats("e2.tsv", []byte("\n\n   \n\r\n")), 1, []string{"empty corpus"}},
		{"NUL byte", stats("n.tsv", []byte("a\trock\nb\tx\x00y\n")), 1, []string{"line 2:", "NUL byte) at byte 10"}},
		{"invalid UTF-8", stats("u.tsv", []byte("a\trock\nb\tro\xffck\n")), 1, []string{"line 2: not UTF-8 at byte 11"}},
		{"300-byte tag", stats("t.tsv", []byte("a\trock\nb\t"+strings.Repeat("é", 150)+"\n")), 1, []string{"line 2: tag of 300 bytes (limit 256)"}},
		{"line over the limit", stats("l.txt", []byte("rock\n"+strings.Repeat("z", corpus.DefaultMaxLineBytes+1))), 1, []string{"line 2: line longer than 4194304 bytes"}},
		{"duplicate ids", stats("d1.tsv", []byte("a\trock\nb\tjazz\n\na\tpop\n")), 1, []string{`line 4: duplicate document id "a" (first on line 1)`}},
		{"empty id", stats("d2.tsv", []byte("a\trock\n  \tjazz\n")), 1, []string{"line 2: empty document id"}},
		{"too many tags", stats("d3.tsv", []byte(many)), 1, []string{"only 1 document", "1 document with more than 10000 tags skipped (line 2)"}},
		{"malformed JSONL", stats("j1.jsonl", []byte(`{"id":1,"tags":["a"]}`+"\n"+`{"id":2,"tags":"b"}`+"\n")), 1, []string{"line 2: invalid JSON"}},
		{"JSONL without tags", stats("j2.jsonl", []byte(`{"id":1,"tags":["a"]}`+"\n\n"+`{"id":2}`+"\n")), 1, []string{`line 3: no "tags" array`}},
		{"JSONL tag with a TAB", stats("j3.jsonl", []byte(`{"id":1,"tags":["a"]}`+"\n"+`{"id":2,"tags":["b\tc"]}`+"\n")), 1,
			[]string{`j3.jsonl: line 2: tag "b\tc" holds the control character U+0009`}},
		{"JSONL tag with U+202E", stats("j4.jsonl", []byte(`{"id":1,"tags":["a\u202e"]}`+"\n")), 1, []string{"empty corpus", "1 document with a bidirectional formatting character in a tag skipped (line 1)"}},
		{"ARFF without @data", stats("a1.arff", []byte("@relation r\n@attribute a {0,1}\n")), 1, []string{"ARFF has no @data section"}},
		{"ARFF bad sparse entry", stats("a2.arff", []byte("@relation r\n@attribute a {0,1}\n@data\n{0 1}\n{0}\n")), 1, []string{`line 5: bad sparse entry "0"`}},
		{"ARFF label not 0/1", stats("a3.arff", []byte("@relation r\n@attribute a {0,1}\n@attribute b {0,1}\n@data\n1,0\n0,yes\n")), 1,
			[]string{`line 6: label "b": value "yes" is not 0 or 1`}},
		{"CSV unbalanced quotes", stats("q.csv", []byte("id,tags\n1,rock\n2,\"jazz\n")), 1, []string{"line 3:", "quote"}},
		{"unknown format name", stats("f.tsv", []byte(goodTSV), "--format", "xml"), 2, []string{`unknown format "xml"`}},
		{"unknown format name, train", train("--format", "yaml"), 2, []string{`unknown format "yaml"`}},
		{"missing corpus file", []string{"stats", "--corpus", filepath.Join(dir, "nosuch.tsv")}, 1, []string{"nosuch.tsv", "no such file"}},
		// Split files (taglens train --split).
		{"split: unknown id", split("a\ttrain\nzz\ttest\n"), 1, []string{"split1.tsv: corpus: split: line 2: unknown document id \"zz\""}},
		{"split: unknown subset", split("a\ttrain\nb\tholdout\n"), 1, []string{`line 2: unknown subset "holdout"`}},
		{"split: id twice", split("a\ttrain\nb\ttest\n\na\tvalid\n"), 1, []string{`line 4: document "a" assigned twice`}},
		{"split: no tab", split("a train\n"), 1, []string{"line 1: want \"id<TAB>subset\""}},
		{"split: empty file", split(""), 1, []string{"split5.tsv: corpus: split: split file is empty"}},
		{"split: blank lines", split("\n\n"), 1, []string{"split file is empty"}},
		{"split: document missing", split("a\ttrain\nb\ttest\nc\tvalid\n"), 1, []string{`document "d" (number 4 of the corpus) has no subset`}},
		// OOV files (taglens train --oov): blank lines are skipped, tags absent
		// from the corpus warned about (TestAbsentOOVWarning).
		{"oov: 300-byte line", train("--oov", file("oov1.txt", []byte("rock\n\n"+strings.Repeat("o", 300)+"\n"))), 1,
			[]string{"oov1.txt: corpus: oov tags: line 3: tag of 300 bytes (limit 256)"}},
		{"oov: BEL in a tag", train("--oov", file("oov2.txt", []byte("ro\ack\n"))), 1, []string{"oov2.txt: corpus: oov tags: line 1:", "control character U+0007"}},
		// Flags.
		{"train --hidden 0", train("--hidden", "0"), 2, []string{"--hidden width 0: must be in 1..4096"}},
		{"train --hidden 5000", train("--hidden", "100,5000"), 2, []string{"--hidden width 5000: must be in 1..4096"}},
		{"train --hidden 7 layers", train("--hidden", "9,9,9,9,9,9,9"), 2, []string{"--hidden 7 layers: at most 6"}},
		{"train --alpha -1", train("--alpha", "-1"), 2, []string{"--alpha -1: must be a finite number ≥ 0"}},
		{"train --lambda NaN", train("--lambda", "NaN"), 2, []string{"--lambda NaN: must be a finite number ≥ 0"}},
		{"train --lambda +Inf", train("--lambda", "+Inf"), 2, []string{"--lambda +Inf"}},
		{"train --topics 100000", train("--topics", "100000"), 2, []string{"--topics 100000: must be in 0..1000"}},
		{"train --topics -3", train("--topics", "-3"), 2, []string{"--topics -3"}},
		{"train --learning-rate 50", train("--learning-rate", "50"), 2, []string{"--learning-rate 50: must be in 0..10"}},
		{"train --max-epochs1 200000", train("--max-epochs1", "200000"), 2, []string{"--max-epochs1 200000: must be in 0..100000"}},
		{"train --max-time 200h", train("--max-time", "200h"), 2, []string{"--max-time 200h0m0s: must be in 0..168h0m0s"}},
		{"train --seed x", train("--seed", "x"), 2, []string{`invalid value "x" for flag -seed`}},
		{"train --hidden 8,,4", train("--hidden", "8,,4"), 2, []string{`invalid value "8,,4" for flag -hidden: "8,,4": want comma-separated layer widths`}},
		{"train --topics ten", train("--topics", "ten"), 2, []string{`invalid value "ten" for flag -topics: "ten": not an integer`}},
		{"train --max-time soon", train("--max-time", "soon"), 2, []string{`flag -max-time: "soon": not a duration`}},
		{"train --max-time 700000 (seconds)", train("--max-time", "700000"), 2, []string{`"700000": seconds must be in 0..604800`}},
		{"train --lambda 1e300", train("--lambda", "1e300"), 2, []string{"--lambda 1e+300: must be a finite number ≥ 0 and at most 1000"}},
		{"train --output-sample -5", train("--output-sample", "-5"), 2, []string{"--output-sample -5: must be -1 (the exact loss), 0 (the default) or in 1..100000"}},
		{"eval --missing 99", []string{"eval", "--model", "m", "--corpus", good, "--subset", "test", "--missing", "99"}, 2,
			[]string{`missing-rate band "99" is not one of the paper's three: 10 (up to 10 %), 10-30 or 30-50`}},
		{"tsne --iters 1e11", []string{"tsne", "--in", good, "--out", out, "--iters", "1e11"}, 2, []string{"--iters 100000000000: must be a positive integer in 1..100000"}},
		{"prime --k -1", []string{"prime", "--model", "m", "--tags", "a", "--k", "-1"}, 2, []string{"--k -1: must be in 1..1000"}},
		{"prime --k 0", []string{"prime", "--model", "m", "--tags", "a", "--k", "0"}, 2, []string{"--k 0"}},
		{"tsne --perplexity 0", []string{"tsne", "--in", good, "--out", out, "--perplexity", "0"}, 2, []string{"--perplexity 0: must be a finite number > 0"}},
		{"tsne --perplexity NaN", []string{"tsne", "--in", good, "--out", out, "--perplexity", "NaN"}, 2, []string{"--perplexity NaN"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), c.args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != c.code {
				t.Errorf("exit status %d, want %d (%v)", code, c.code, err)
			}
			msg := stderr.String()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", cut(msg, 400), w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
				os.Remove(out)
			}
			if c.code == 1 && len(msg) > 600 {
				t.Errorf("message of %d bytes: %q", len(msg), cut(msg, 400))
			}
		})
	}
	t.Logf("%d bad CLI inputs", len(cases))
}

// TestAbsentOOVWarning: reserved OOV tags that no document holds are named
// on stderr (how many, the first few) before training; blank lines are
// skipped. The training itself is cancelled at once.
func TestAbsentOOVWarning(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "c.tsv")
	oov := filepath.Join(dir, "oov.txt")
	if err := os.WriteFile(c, []byte("a\trock\tguitar\nb\tjazz\tpiano\nc\trock\tjazz\nd\tfolk\tguitar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := "jazz\n\n  \nnosuch\nfolk\n"
	for i := range 6 {
		lines += "x" + strconv.Itoa(i) + "\n"
	}
	if err := os.WriteFile(oov, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	_ = run(ctx, []string{"train", "--corpus", c, "--oov", oov, "--out", filepath.Join(dir, "m.tlm")}, &stdout, &stderr)
	want := "warning: " + oov + `: 7 of the 9 reserved OOV tags are in no document of the corpus (they reserve nothing): "nosuch", "x0", "x1", "x2", "x3" and 2 more` + "\n"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", cut(stderr.String(), 600), want)
	}
	stderr.Reset()
	if err := os.WriteFile(oov, []byte("jazz\n\nfolk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = run(ctx, []string{"train", "--corpus", c, "--oov", oov, "--out", filepath.Join(dir, "m.tlm")}, &stdout, &stderr)
	if strings.Contains(stderr.String(), "warning:") {
		t.Errorf("every OOV tag is in the corpus, yet: %q", cut(stderr.String(), 600))
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestGzipCorpusCLI: a gzip-compressed corpus reads like the plain one, and
// taglens stats says how its format was found.
func TestGzipCorpusCLI(t *testing.T) {
	tsv := "a\trock\tguitar\nb\tjazz\tpiano\nc\trock\tjazz\n"
	p := filepath.Join(t.TempDir(), "songs.tsv.gz")
	if err := os.WriteFile(p, gzipString(t, tsv), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"stats", "--corpus", p}, &stdout, &stderr); err != nil {
		t.Fatalf("stats: %v (%s)", err, stderr.String())
	}
	for _, want := range []string{"corpus      songs (tsv)", "detected    tsv: a tab in line 1 (gzip-compressed)", "documents   3", "tags        4"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"stats", "--corpus", p, "--format", "tsv"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String(), "detected") {
		t.Errorf("--format given, yet the output says the format was detected:\n%s", stdout.String())
	}
}
