package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
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
