package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// update rewrites the golden files from the current output:
//
//	go test ./internal/report -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// golden compares got with testdata/name, or writes it there with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -update to accept it):\n%s", path, firstDifference(want, got))
	}
}

// firstDifference shows the first line where want and got differ.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, a, b)
		}
	}
	return "same lines, different bytes"
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readTSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ParseTSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// loadDocument reads a folder of testdata as taglens report does: eval reports
// and train-*.json summaries, and run.tsv, steps.tsv, claims.tsv and intro.md
// when there.
func loadDocument(t *testing.T, dir string) *Document {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	d := &Document{Title: "Golden"}
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasPrefix(base, "train-") {
			tr := Training{File: base}
			readJSON(t, name, &tr)
			d.Trainings = append(d.Trainings, tr)
			continue
		}
		r := &Report{File: base}
		readJSON(t, name, &r.Report)
		if err := CheckReport(&r.Report); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d.Reports = append(d.Reports, r)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.tsv")); err == nil {
		d.Run = Pairs(readTSVFile(t, filepath.Join(dir, "run.tsv")))
		d.Steps = readTSVFile(t, filepath.Join(dir, "steps.tsv"))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "intro.md")); err == nil {
		d.Intro = string(b)
	}
	if f, err := os.Open(filepath.Join(dir, "claims.tsv")); err == nil {
		defer f.Close()
		if d.Claims, err = ParseClaims(f); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func render(t *testing.T, d *Document) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGoldenResults renders testdata/results: every section of the document
// (run, headline, goal check, claims, the four settings' sections with the
// missing-rate summary, tuning, training runs), with ours first on some
// metrics and beaten on others, claims met, missed, unmeasured and without
// any of ours in the report; once without figures, once with their links and
// with the corpora in a given order.
func TestGoldenResults(t *testing.T) {
	d := loadDocument(t, filepath.Join("testdata", "results"))
	files := func() (out []string) {
		for _, r := range d.Reports {
			out = append(out, r.File)
		}
		return out
	}
	loaded := files()
	golden(t, "results.golden.md", render(t, d))

	d.CorpusOrder = []string{"beta", "alpha"}
	d.FigureLink = "results/charts"
	golden(t, "results-figures.golden.md", render(t, d))
	if got := files(); !slices.Equal(got, loaded) {
		t.Errorf("Write reordered the caller's reports: %v, was %v", got, loaded)
	}
}

// TestGoldenNoHeadline renders a document without a within-corpus report: the
// headline says so and links no figure.
func TestGoldenNoHeadline(t *testing.T) {
	d := loadDocument(t, filepath.Join("testdata", "noheadline"))
	d.FigureLink = "charts"
	golden(t, "noheadline.golden.md", render(t, d))
}

// loadSuite reads testdata/suite as taglens suite does.
func loadSuite(t *testing.T, dir string) *Suite {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var corpora []string
	for _, e := range entries {
		n := e.Name()
		var c string
		switch {
		case strings.HasSuffix(n, ".json"):
			c, _, _ = strings.Cut(n, ".")
		case strings.HasPrefix(n, "train-"):
			c = strings.TrimPrefix(n[:strings.LastIndex(n, "-s")], "train-")
		default:
			continue
		}
		if !slices.Contains(corpora, c) {
			corpora = append(corpora, c)
		}
	}
	slices.Sort(corpora)
	s := &Suite{}
	for _, c := range corpora {
		sc := SuiteCorpus{Name: c, Reports: map[string]*eval.Report{}}
		for _, p := range SuiteProtocols {
			path := filepath.Join(dir, c+"."+p+".json")
			if _, err := os.Stat(path); err == nil {
				var r eval.Report
				readJSON(t, path, &r)
				sc.Reports[p] = &r
			}
		}
		for seed := 1; ; seed++ {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("train-%s-s%d.time", c, seed)))
			if err != nil {
				break
			}
			tt, ok, err := ParseTrainTime(b)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			sc.Trainings = append(sc.Trainings, tt)
		}
		s.Corpora = append(s.Corpora, sc)
	}
	id, err1 := os.ReadFile(filepath.Join(dir, "CODE_ID"))
	commit, err2 := os.ReadFile(filepath.Join(dir, "COMMIT"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	s.Source = &SuiteSource{Commit: string(commit), CodeID: string(id)}
	b, err := os.ReadFile(filepath.Join(dir, "run.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	s.Run = strings.Split(strings.TrimSpace(string(b)), "\n")
	return s
}

// TestGoldenSuite renders testdata/suite: a corpus with both protocols where
// ours leads MAP and trails AUC, one whose priming evaluation has not run
// (and whose second training is still running), one only trained; training
// times with and without CPU figures.
func TestGoldenSuite(t *testing.T) {
	s := loadSuite(t, filepath.Join("testdata", "suite"))
	var b bytes.Buffer
	if err := WriteSuite(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "suite.golden.md", b.Bytes())

	// Without the source and run lines.
	s.Source, s.Run = nil, nil
	b.Reset()
	if err := WriteSuite(&b, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "The results belong to") || strings.Contains(b.String(), "Run:") {
		t.Errorf("source or run line without a source or run:\n%s", b.String())
	}
}

// TestParseTrainTime covers the time file's forms.
func TestParseTrainTime(t *testing.T) {
	for _, tc := range []struct {
		in      string
		ok, err bool
		cpu     float64
	}{
		{"100\t2048\t150\t10\n", true, false, 160},
		{"", false, false, 0},
		{"100\n", false, true, 0},
		{"x\t2048\n", false, true, 0},
	} {
		got, ok, err := ParseTrainTime([]byte(tc.in))
		if ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("%q: ok %v, err %v", tc.in, ok, err)
		}
		if ok && got.CPU != tc.cpu {
			t.Errorf("%q: CPU %g, want %g", tc.in, got.CPU, tc.cpu)
		}
	}
}
