package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"slices"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/taglens/taglens/ml/eval"
)

// PNG figures of the document, drawn with the standard image packages and
// x/image's fixed 7×13 font so that the document's figures need no browser
// and the same reports give the same bytes.

const (
	headlineFigure = "headline" // the name of the headline figure, without extension
	figureExt      = ".png"
)

// figureName is the name of a report's figure, without extension: its file's.
func figureName(r *Report) string { return strings.TrimSuffix(r.File, ".json") }

// A Figure is one image file of the document.
type Figure struct {
	Name string // file name, as linked from the document
	Data []byte
}

// Figures draws the figures a document with a FigureLink links to: the
// headline's MAP and AUC bars (when it has a headline) and every report's P@K
// and precision-recall curves.
func Figures(d *Document) ([]Figure, error) {
	s := *d
	s.Reports = slices.Clone(d.Reports)
	s.sortReports()
	var out []Figure
	if sel := s.headlineReports(); len(sel) > 0 {
		out = append(out, Figure{Name: headlineFigure + figureExt, Data: headlineChart(sel)})
	}
	for _, r := range s.Reports {
		out = append(out, Figure{Name: figureName(r) + figureExt, Data: reportChart(r)})
	}
	return out, nil
}

// chartSeries is one model's curve (or bars): values and their standard errors.
type chartSeries struct {
	name  string
	y, se []float64
}

// chartPanel is one plot: series over the x tick labels, y in [0, yMax].
type chartPanel struct {
	title, xLabel, yLabel string
	xTicks                []string
	series                []chartSeries
	bars                  bool // grouped bars (one group per x tick) instead of lines
}

// chartPalette gives each model the same colour in every figure; CE and
// Siamese-CE get the strongest ones.
var chartPalette = map[string]color.RGBA{
	"siamese-ce": {214, 39, 40, 255}, "ce": {255, 127, 14, 255},
	"random": {127, 127, 127, 255}, "lsa": {31, 119, 180, 255}, "pca": {23, 190, 207, 255},
	"infotheo": {44, 160, 44, 255}, "skipgram": {188, 189, 34, 255}, "lda": {148, 103, 189, 255},
	"plsa": {140, 86, 75, 255}, "crbm": {227, 119, 194, 255},
	"ppmi-svd": {57, 59, 121, 255}, "glove": {99, 121, 57, 255},
	"siamese-ce-avg": {214, 39, 40, 255}, "ce-avg": {255, 127, 14, 255},
	"siamese-ce-feature": {31, 119, 180, 255}, "ce-feature": {44, 160, 44, 255},
}

// chartColor returns the model's palette colour, black for an unknown name.
func chartColor(name string) color.RGBA {
	if c, ok := chartPalette[name]; ok {
		return c
	}
	return color.RGBA{0, 0, 0, 255}
}

var (
	chartGrid  = color.RGBA{225, 225, 225, 255}
	chartAxis  = color.RGBA{60, 60, 60, 255}
	chartWhite = color.RGBA{255, 255, 255, 255}
)

const (
	chartPanelW = 460 // pixels of one panel, axes and labels included
	chartH      = 400
	chartLegend = 150
	chartMargin = 48 // left margin of a panel (y tick labels)
	chartTop    = 40
	chartBottom = 50
)

// renderChart draws the panels side by side with one legend of every series
// name on the right, and returns the PNG.
func renderChart(panels []chartPanel) []byte {
	w := len(panels)*chartPanelW + chartLegend
	img := image.NewRGBA(image.Rect(0, 0, w, chartH))
	draw.Draw(img, img.Bounds(), image.NewUniform(chartWhite), image.Point{}, draw.Src)
	var names []string
	for i, p := range panels {
		drawPanel(img, i*chartPanelW, p)
		for _, s := range p.series {
			if !slices.Contains(names, s.name) {
				names = append(names, s.name)
			}
		}
	}
	lx := len(panels) * chartPanelW
	for i, n := range names {
		y := chartTop + 10 + 18*i
		fillRect(img, lx+4, y-8, lx+20, y, chartColor(n))
		drawText(img, lx+26, y, n, chartAxis)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory RGBA image does not fail
	}
	return b.Bytes()
}

// drawPanel draws panel p with its left edge at x0.
func drawPanel(img *image.RGBA, x0 int, p chartPanel) {
	left, right := x0+chartMargin, x0+chartPanelW-16
	top, bottom := chartTop, chartH-chartBottom
	yMax := 0.0
	for _, s := range p.series {
		for i, v := range s.y {
			e := 0.0
			if i < len(s.se) {
				e = s.se[i]
			}
			if !math.IsNaN(v) {
				yMax = math.Max(yMax, v+e)
			}
		}
	}
	yMax = math.Min(math.Max(math.Ceil(yMax*10-1e-9)/10, 0.1), 1)
	py := func(v float64) int { return bottom - int(math.Round(v/yMax*float64(bottom-top))) }
	// Grid and y ticks every 0.1 (every 0.2 above 0.5).
	step := 0.1
	if yMax > 0.5 {
		step = 0.2
	}
	for v := 0.0; v <= yMax+1e-9; v += step {
		y := py(v)
		hline(img, left, right, y, chartGrid)
		drawText(img, x0+8, y+4, fmt.Sprintf("%.1f", v), chartAxis)
	}
	n := len(p.xTicks)
	slot := float64(right-left) / float64(max(n, 1))
	px := func(i int) int { return left + int(math.Round(slot*(float64(i)+0.5))) }
	for i, t := range p.xTicks {
		x := px(i)
		vline(img, x, bottom, bottom+4, chartAxis)
		drawText(img, x-3*len(t), bottom+17, t, chartAxis)
	}
	hline(img, left, right, bottom, chartAxis)
	vline(img, left, top, bottom, chartAxis)
	drawText(img, left, top-22, p.title, color.RGBA{0, 0, 0, 255})
	drawText(img, left, top-6, p.yLabel, chartAxis)
	drawText(img, (left+right)/2-3*len(p.xLabel), bottom+36, p.xLabel, chartAxis)
	if p.bars {
		k := len(p.series)
		bw := max(int(slot*0.8)/max(k, 1), 2)
		for si, s := range p.series {
			c := chartColor(s.name)
			for i, v := range s.y {
				if math.IsNaN(v) || i >= n {
					continue
				}
				xl := px(i) - bw*k/2 + si*bw
				fillRect(img, xl, py(v), xl+bw-1, bottom, c)
				if i < len(s.se) && s.se[i] > 0 {
					errorBar(img, xl+bw/2, py(v-s.se[i]), py(v+s.se[i]), chartAxis)
				}
			}
		}
		return
	}
	for _, s := range p.series {
		c := chartColor(s.name)
		prev := -1
		for i, v := range s.y {
			if math.IsNaN(v) || i >= n {
				prev = -1
				continue
			}
			if prev >= 0 {
				thickLine(img, px(prev), py(s.y[prev]), px(i), py(v), c)
			}
			if i < len(s.se) && s.se[i] > 0 {
				errorBar(img, px(i), py(v-s.se[i]), py(v+s.se[i]), c)
			}
			fillRect(img, px(i)-2, py(v)-2, px(i)+2, py(v)+2, c)
			prev = i
		}
	}
}

func hline(img *image.RGBA, x0, x1, y int, c color.RGBA) {
	for x := x0; x <= x1; x++ {
		img.SetRGBA(x, y, c)
	}
}

func vline(img *image.RGBA, x, y0, y1 int, c color.RGBA) {
	for y := min(y0, y1); y <= max(y0, y1); y++ {
		img.SetRGBA(x, y, c)
	}
}

func fillRect(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	for y := min(y0, y1); y <= max(y0, y1); y++ {
		hline(img, x0, x1, y, c)
	}
}

// errorBar draws a vertical whisker from y0 to y1 with 5-pixel caps.
func errorBar(img *image.RGBA, x, y0, y1 int, c color.RGBA) {
	vline(img, x, y0, y1, c)
	hline(img, x-2, x+2, y0, c)
	hline(img, x-2, x+2, y1, c)
}

// thickLine draws a 2-pixel line from (x0, y0) to (x1, y1) (Bresenham).
func thickLine(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		img.SetRGBA(x0, y0, c)
		img.SetRGBA(x0, y0+1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// drawText writes s with its baseline at y.
func drawText(img *image.RGBA, x, y int, s string, c color.RGBA) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// reportChart returns the figure of one report: P@K for K = 1..10 and the
// 11-point precision-recall curve of every model, with standard errors (the
// two halves of the paper's Figures 8-22).
func reportChart(r *Report) []byte {
	pk := chartPanel{title: "P@K, " + r.label(), xLabel: "K", yLabel: "P@K"}
	for k := 1; k <= 10; k++ {
		pk.xTicks = append(pk.xTicks, fmt.Sprint(k))
	}
	pr := chartPanel{title: "precision-recall (11 levels)", xLabel: "recall", yLabel: "precision"}
	for l := 0; l < eval.RecallLevels; l++ {
		pr.xTicks = append(pr.xTicks, strings.TrimPrefix(fmt.Sprintf("%.1f", float64(l)/float64(eval.RecallLevels-1)), "0"))
		if l == 0 {
			pr.xTicks[0] = "0"
		}
	}
	for _, m := range r.Models {
		pk.series = append(pk.series, chartSeries{name: m.Name, y: m.PAtK, se: m.PAtKSE})
		pr.series = append(pr.series, chartSeries{name: m.Name, y: m.PR, se: m.PRSE})
	}
	return renderChart([]chartPanel{pk, pr})
}

// headlineChart returns grouped bars of MAP and AUC (± SE) per corpus for the
// reports of sel, one bar per model.
func headlineChart(sel []*Report) []byte {
	mapP := chartPanel{title: "MAP, extended priming, test subsets", yLabel: "MAP", bars: true}
	aucP := chartPanel{title: "AUC, extended priming, test subsets", yLabel: "AUC", bars: true}
	var models []string
	for _, r := range sel {
		mapP.xTicks = append(mapP.xTicks, r.Corpus)
		for _, m := range r.Models {
			if !slices.Contains(models, m.Name) {
				models = append(models, m.Name)
			}
		}
	}
	aucP.xTicks = mapP.xTicks
	for _, name := range models {
		sm, sa := chartSeries{name: name}, chartSeries{name: name}
		for _, r := range sel {
			v, e, a, ae := math.NaN(), 0.0, math.NaN(), 0.0
			if m := r.model(name); m != nil {
				v, e, a, ae = m.MAP, m.MAPSE, m.AUC, m.AUCSE
			}
			sm.y, sm.se = append(sm.y, v), append(sm.se, e)
			sa.y, sa.se = append(sa.y, a), append(sa.se, ae)
		}
		mapP.series = append(mapP.series, sm)
		aucP.series = append(aucP.series, sa)
	}
	return renderChart([]chartPanel{mapP, aucP})
}
