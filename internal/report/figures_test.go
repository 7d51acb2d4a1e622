package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/palette"
)

// svgTexts parses an SVG document and returns its text elements' contents.
func svgTexts(t *testing.T, name string, b []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	inText, root := false, ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(tok)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", name, root)
	}
	return texts
}

// TestFigures draws the figures of testdata/results and checks them: one file
// per link of the golden document with figures, each a well-formed SVG with
// its axis labels, one legend entry per model and each model drawn in its
// palette colour, and the same bytes when drawn again.
func TestFigures(t *testing.T) {
	d := loadDocument(t, filepath.Join("testdata", "results"))
	figs, err := Figures(d)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join("testdata", "results-figures.golden.md"))
	if err != nil {
		t.Fatal(err)
	}
	var linked, drawn []string
	for _, m := range regexp.MustCompile(`\]\(results/charts/([^)]+)\)`).FindAllStringSubmatch(string(md), -1) {
		linked = append(linked, m[1])
	}
	for _, f := range figs {
		drawn = append(drawn, f.Name)
	}
	slices.Sort(linked)
	slices.Sort(drawn)
	if !slices.Equal(linked, drawn) {
		t.Errorf("drawn %v, the document links %v", drawn, linked)
	}

	models := map[string][]string{} // figure → models, in chart order
	labels := map[string][]string{} // figure → axis labels
	for _, r := range d.Reports {
		name := figureName(r) + figureExt
		for _, m := range r.Models {
			models[name] = append(models[name], m.Name)
		}
		labels[name] = []string{"K", "P@K", "recall", "precision"}
	}
	for _, r := range d.headlineReports() {
		for _, m := range r.Models {
			if !slices.Contains(models["headline.svg"], m.Name) {
				models["headline.svg"] = append(models["headline.svg"], m.Name)
			}
		}
	}
	labels["headline.svg"] = []string{"MAP", "AUC", "corpus", "alpha", "beta"}

	for _, f := range figs {
		texts := svgTexts(t, f.Name, f.Data)
		for _, l := range labels[f.Name] {
			if !slices.Contains(texts, l) {
				t.Errorf("%s: no text %q (axis label or tick)", f.Name, l)
			}
		}
		for i, m := range models[f.Name] {
			if n := count(texts, m); n != 1 {
				t.Errorf("%s: model %s in the legend %d times, want once", f.Name, m, n)
			}
			if c := palette.Model(m, i); !bytes.Contains(f.Data, []byte(c)) {
				t.Errorf("%s: nothing drawn in %s's colour %s", f.Name, m, c)
			}
		}
		if bytes.Contains(f.Data, []byte("NaN")) {
			t.Errorf("%s: a NaN coordinate", f.Name)
		}
	}

	again, err := Figures(d)
	if err != nil {
		t.Fatal(err)
	}
	for i := range figs {
		if !bytes.Equal(figs[i].Data, again[i].Data) {
			t.Errorf("%s: two drawings differ", figs[i].Name)
		}
	}

	// A document without a headline has no headline figure.
	figs, err = Figures(loadDocument(t, filepath.Join("testdata", "noheadline")))
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 1 || figs[0].Name != "beta-to-alpha-priming.svg" {
		t.Errorf("got %d figures (%v), want only the report's", len(figs), figs)
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}
