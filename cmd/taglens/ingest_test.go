package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/ml/corpus"

	"github.com/taglens/taglens/internal/testkit"
)

// overCapLine is a TSV document line with one tag more than the tag cap.
func overCapLine(id string) string {
	var b strings.Builder
	b.WriteString(id)
	for i := range corpus.DefaultMaxTagsPerDoc + 1 {
		b.WriteString("\tgene" + strconv.Itoa(i))
	}
	b.WriteByte('\n')
	return b.String()
}

// TestStatsSkipped: a document over the tag cap no longer refuses the corpus
// ("line 3: document has more than 10000 tags" before); taglens stats and its
// --json say it was skipped and where.
func TestStatsSkipped(t *testing.T) {
	path := writeTemp(t, "docs.tsv", "a\trock\tjazz\nb\tpop\n"+overCapLine("genome")+"c\trock\n")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"stats", "--corpus", path}, &stdout, &stderr); err != nil {
		t.Fatalf("stats: %v (stderr %s)", err, stderr.String())
	}
	for _, want := range []string{"documents   3\n", "1 document with more than 10000 tags skipped (line 3)", "max 2\n"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"stats", "--corpus", path, "--json"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Docs         int   `json:"docs"`
		Skipped      int   `json:"skipped_docs"`
		SkippedLines []int `json:"skipped_lines"`
		TagCap       int   `json:"tag_cap"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Docs != 3 || got.Skipped != 1 || len(got.SkippedLines) != 1 || got.SkippedLines[0] != 3 || got.TagCap != 10000 {
		t.Errorf("--json: got %+v", got)
	}
}

// TestStatsSkipsBidi: a document whose tag holds a bidirectional
// formatting character no longer refuses the corpus (cldr-emoji's 97 Arabic
// lines with U+202B did); taglens stats and its --json say it was skipped
// and where, and its tags are not counted.
func TestStatsSkipsBidi(t *testing.T) {
	path := writeTemp(t, "docs.tsv", "a\trock\tjazz\nb\tpop\nar\tوجه\t\u202bمبتسم\u202c\nc\trock\n")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"stats", "--corpus", path}, &stdout, &stderr); err != nil {
		t.Fatalf("stats: %v (stderr %s)", err, stderr.String())
	}
	for _, want := range []string{"documents   3\n", "1 document with a bidirectional formatting character in a tag skipped (line 3)", "tags        3 "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"stats", "--corpus", path, "--json"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Docs      int   `json:"docs"`
		Bidi      int   `json:"bidi_skipped_docs"`
		BidiLines []int `json:"bidi_skipped_lines"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Docs != 3 || got.Bidi != 1 || len(got.BidiLines) != 1 || got.BidiLines[0] != 3 {
		t.Errorf("--json: got %+v", got)
	}
	if strings.ContainsAny(stdout.String(), "\u202b\u202c") {
		t.Error("the statistics hold a bidirectional formatting character")
	}
}

// TestTrainSkipped: taglens train reads a corpus with a document over the
// tag cap and a split file that names it, and says in its log what it left
// out.
func TestTrainSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a small model")
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.tsv")
	writeTagCorpus(t, docs, 90)
	f, err := os.OpenFile(docs, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(overCapLine("genome")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var split strings.Builder
	for i := range 90 {
		sub := [3]string{"train", "train", "valid"}[i%3]
		fmt.Fprintf(&split, "d%d\t%s\n", i, sub)
	}
	split.WriteString("genome\ttest\n")
	splitPath := writeTemp(t, "split.tsv", split.String())
	var stdout, stderr bytes.Buffer
	args := []string{"train", "--corpus", docs, "--split", splitPath, "--out", filepath.Join(dir, "m.tlm"), "--seed", "1", "--topics", "2",
		"--hidden", "4", "--max-epochs1", "1", "--max-epochs2", "1", "--epoch-examples", "200"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("train: %v\n%s", err, stderr.String())
	}
	if want := ": 90 documents; 60 train, 30 valid; 1 document with more than 10000 tags skipped (line 91)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("the log lacks %q:\n%s", want, stderr.String())
	}
}

// writeGzipBomb writes to path a gzip file that unpacks to more than size
// bytes of lines made by line, without holding them: a first member of head
// bytes of lines (all different), then one member of a MiB of the first line
// repeated, repeated (a file of several gzip members is one gzip stream). It
// returns the unpacked size.
func writeGzipBomb(t *testing.T, path string, size, head int64, line func(w *bufio.Writer, i int)) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	member := func(w io.Writer, n int64, level int, same bool) int64 {
		zw, _ := gzip.NewWriterLevel(w, level)
		cw := &countWriter{w: zw}
		bw := bufio.NewWriterSize(cw, 1<<16)
		for i := 0; cw.n+int64(bw.Buffered()) < n; i++ {
			if same {
				line(bw, 0)
			} else {
				line(bw, i)
			}
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return cw.n
	}
	total := member(f, head, gzip.BestSpeed, false)
	var block bytes.Buffer
	n := member(&block, 1<<20, gzip.BestCompression, true)
	for ; total <= size; total += n {
		if _, err := f.Write(block.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return total
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// gzipBombs are the shapes of gzip bomb the memory tests feed the parser, in
// the lines format (one document per line, comma-separated tags, the line
// number as id): issue 30's 200-tag lines, one short tag per line (many
// documents), lines without tags (dropped documents, whose ids the duplicate
// check holds) and distinct tags (the vocabulary: 96 MiB of them first).
var gzipBombs = []struct {
	name string
	head int64 // bytes of all-different lines first
	line func(w *bufio.Writer, i int)
}{
	{"200-tag lines", 1 << 20, func(w *bufio.Writer, i int) {
		w.WriteString("t" + strconv.Itoa(i%1000))
		for j := 1; j < 200; j++ {
			w.WriteString(",t" + strconv.Itoa((i+7*j)%1000))
		}
		w.WriteByte('\n')
	}},
	{"one tag per line", 1 << 20, func(w *bufio.Writer, i int) { w.WriteString("t" + strconv.Itoa(i%1000) + "\n") }},
	{"lines without tags", 1 << 20, func(w *bufio.Writer, i int) { w.WriteString(",\n") }},
	{"distinct tags", 96 << 20, func(w *bufio.Writer, i int) {
		for j := range 10 {
			if j > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "tag%09d", 10*i+j)
		}
		w.WriteByte('\n')
	}},
}

// TestStatsGzipBombMemory (opt-in: TAGLENS_MEMTEST=1) runs taglens stats on
// gzip files that unpack to over 1 GiB and checks that each is refused with
// an error naming the limit while the process's peak RSS stays under 1 GiB
// (issue 30: 4.42 GB for the 200-tag lines before). It writes about 30 MB
// of temporary files and prints the figures.
func TestStatsGzipBombMemory(t *testing.T) {
	if os.Getenv("TAGLENS_MEMTEST") == "" {
		t.Skip("set TAGLENS_MEMTEST=1 to run (writes ~30 MB of gzip bombs)")
	}
	dir := t.TempDir()
	for _, bomb := range gzipBombs {
		t.Run(bomb.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(bomb.name, " ", "-")+".gz")
			unpacked := writeGzipBomb(t, path, corpus.DefaultMaxBytes, bomb.head, bomb.line)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			debug.FreeOSMemory() // what the previous shape left, so that the peak is this one's
			base := testkit.PeakRSS(t, true)
			start := time.Now()
			var stdout, stderr bytes.Buffer
			err = run(context.Background(), []string{"stats", "--corpus", path, "--format", "lines"}, &stdout, &stderr)
			peak := testkit.PeakRSS(t, false)
			t.Logf("%s: %.1f MB of gzip unpacking to %.2f GiB refused in %.1fs, peak RSS %.0f MB (%.0f MB before): %v", bomb.name,
				float64(st.Size())/1e6, float64(unpacked)/(1<<30), time.Since(start).Seconds(), float64(peak)/1e6, float64(base)/1e6, err)
			if err == nil {
				t.Fatal("the bomb was read")
			}
			if msg := err.Error(); !strings.Contains(msg, "of memory (the limit of one parse)") && !strings.Contains(msg, "larger than the limit of 1 GiB") {
				t.Errorf("the error does not name the limit: %v", err)
			}
			if peak >= 1<<30 {
				t.Errorf("peak RSS %d bytes, want under 1 GiB", peak)
			}
		})
	}
}
