package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/eval"
)

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// pixelsOf returns the rows and columns, within x < xMax, of the pixels of colour c.
func pixelsOf(img image.Image, c color.RGBA, xMax int) (ys, xs []int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < min(b.Max.X, xMax); x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == c {
				ys, xs = append(ys, y), append(xs, x)
			}
		}
	}
	return ys, xs
}

// TestChartGeometry checks where values land: a constant line at the top of
// the axis (its own maximum) is drawn in the rows of the axis top, across the
// panel; a bar of half the maximum rises half as high as the full one.
func TestChartGeometry(t *testing.T) {
	flat := make([]float64, 10)
	for i := range flat {
		flat[i] = 0.3
	}
	img := decodePNG(t, renderChart([]chartPanel{{xTicks: make([]string, 10), series: []chartSeries{{name: "siamese-ce", y: flat}}}}))
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != chartPanelW+chartLegend || h != chartH {
		t.Fatalf("size %d×%d, want %d×%d", w, h, chartPanelW+chartLegend, chartH)
	}
	ys, xs := pixelsOf(img, chartColor("siamese-ce"), chartPanelW)
	if len(ys) == 0 {
		t.Fatal("no pixel of the series")
	}
	for _, y := range ys {
		if y < chartTop-2 || y > chartTop+2 {
			t.Fatalf("series pixel in row %d, want %d ± 2 (the axis top, y = 0.3 = its maximum)", y, chartTop)
		}
	}
	if lo, hi := minInt(xs), maxInt(xs); lo > chartMargin+30 || hi < chartPanelW-50 {
		t.Errorf("series spans columns %d-%d, want most of the panel", lo, hi)
	}

	bars := decodePNG(t, renderChart([]chartPanel{{bars: true, xTicks: []string{"x", "y"},
		series: []chartSeries{{name: "ce", y: []float64{0.2, 0.1}}}}}))
	ys, xs = pixelsOf(bars, chartColor("ce"), chartPanelW)
	mid := chartMargin + (chartPanelW-16-chartMargin)/2
	top := [2]int{chartH, chartH}
	for i, y := range ys {
		g := 0
		if xs[i] > mid {
			g = 1
		}
		top[g] = min(top[g], y)
	}
	bottom := chartH - chartBottom
	full, half := bottom-top[0], bottom-top[1]
	if full != bottom-chartTop || half < full/2-1 || half > full/2+1 {
		t.Errorf("bar heights %d and %d, want %d and half of it", full, half, bottom-chartTop)
	}
}

func minInt(x []int) int {
	m := x[0]
	for _, v := range x {
		m = min(m, v)
	}
	return m
}

func maxInt(x []int) int {
	m := x[0]
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

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
	for _, want := range []string{"](results/charts/headline.png)", "](results/charts/a-extended-test.png)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("document lacks the link %q", want)
		}
	}
	first := map[string][]byte{}
	for _, name := range []string{"headline.png", "a-extended-test.png"} {
		b, err := os.ReadFile(filepath.Join(charts, name))
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, b)
		if ys, _ := pixelsOf(img, chartColor("siamese-ce"), img.Bounds().Dx()-chartLegend); len(ys) == 0 {
			t.Errorf("%s: no pixel of siamese-ce", name)
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
