package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

// TestReportCharts: `taglens report --charts DIR` writes the headline figure
// and one figure per report, links them relative to the document, and gives
// the same bytes for the same reports; without --charts no image is linked.
func TestReportCharts(t *testing.T) {
	dir := t.TempDir()
	writeJSONFile(t, filepath.Join(dir, "a-extended-test.json"), eval.Report{
		Corpus: "a", Subset: "test", Protocol: "extended", Trials: 1, Setting: eval.WithinCorpus, Seeds: []uint64{1},
		Models: []eval.ModelReport{fakeModel("pca", 0.5, 0.01, 0.5, 0.02, nil), fakeModel("siamese-ce", 0.6, 0.01, 0.4, 0.02, nil)},
	})
	outDir := t.TempDir()
	out := filepath.Join(outDir, "doc.md")
	charts := filepath.Join(outDir, "results", "charts")
	var stdout, stderr bytes.Buffer
	args := []string{"report", "--in", dir, "--out", out, "--charts", charts}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("report: %v (%s)", err, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"](results/charts/headline.svg)", "](results/charts/a-extended-test.svg)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("document lacks the link %q", want)
		}
	}
	first := map[string][]byte{}
	for _, name := range []string{"headline.svg", "a-extended-test.svg"} {
		b, err := os.ReadFile(filepath.Join(charts, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(b, new(struct {
			XMLName xml.Name `xml:"svg"`
		})); err != nil {
			t.Errorf("%s: not an SVG document: %v", name, err)
		}
		if !bytes.Contains(b, []byte("siamese-ce")) {
			t.Errorf("%s: no siamese-ce in the legend", name)
		}
		first[name] = b
	}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for name, b := range first {
		if again, _ := os.ReadFile(filepath.Join(charts, name)); !bytes.Equal(b, again) {
			t.Errorf("%s: two renderings differ", name)
		}
	}
	plain := filepath.Join(outDir, "plain.md")
	if err := run(context.Background(), []string{"report", "--in", dir, "--out", plain}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(plain); strings.Contains(string(b), "![") {
		t.Errorf("an image is linked without --charts")
	}
}
