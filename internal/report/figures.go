package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/taglens/taglens/internal/palette"
	"github.com/taglens/taglens/ml/eval"
)

// The document's figures are SVG drawn with gonum.org/v1/plot: they need no
// browser, scale with the page, and the same reports give the same bytes.
// Their colours are the web app's (internal/palette).

const (
	headlineFigure = "headline" // the name of the headline figure, without extension
	figureExt      = ".svg"

	panelW  = 4.6 * vg.Inch // one plot, axes and labels included
	legendW = 1.7 * vg.Inch // the legend column on the right of the plots
	figureH = 3.8 * vg.Inch
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
		b, err := headlineChart(sel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", headlineFigure+figureExt, err)
		}
		out = append(out, Figure{Name: headlineFigure + figureExt, Data: b})
	}
	for _, r := range s.Reports {
		b, err := reportChart(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", figureName(r)+figureExt, err)
		}
		out = append(out, Figure{Name: figureName(r) + figureExt, Data: b})
	}
	return out, nil
}

// series is one model's values over a panel's x positions, and their
// standard errors; NaN is a missing value.
type series struct {
	name  string
	color color.Color
	y, se []float64
}

// modelSeries gives the models their colours, in chart order.
func modelSeries(names []string) []series {
	out := make([]series, len(names))
	for i, n := range names {
		out[i] = series{name: n, color: palette.RGBA(palette.Model(n, i))}
	}
	return out
}

// axisMax is the top of a y axis showing every value + error of ss: the next
// tenth above, at least 0.1 and at most 1.
func axisMax(ss []series) float64 {
	top := 0.0
	for _, s := range ss {
		for i, v := range s.y {
			if !math.IsNaN(v) {
				top = math.Max(top, v+at(s.se, i))
			}
		}
	}
	return math.Min(math.Max(math.Ceil(top*10-1e-9)/10, 0.1), 1)
}

func at(x []float64, i int) float64 {
	if i < len(x) && !math.IsNaN(x[i]) {
		return x[i]
	}
	return 0
}

// newPanel is a plot with the document's title, axis labels and grid, y from 0.
func newPanel(title, xLabel, yLabel string, yMax float64) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Y.Min, p.Y.Max = 0, yMax
	p.Y.Tick.Marker = stepTicks{}
	p.Add(plotter.NewGrid())
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font} {
		f.Variant = "Sans"
	}
	return p
}

// errorPoints are points with symmetric y errors, for plotter.NewYErrorBars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// addCurves adds one line with points and error bars per series, at x[i]
// for the i-th value, and returns a legend entry per series.
func addCurves(p *plot.Plot, x []float64, ss []series) ([]plot.Thumbnailer, error) {
	thumbs := make([]plot.Thumbnailer, len(ss))
	for k, s := range ss {
		var pts errorPoints
		for i, v := range s.y {
			if i < len(x) && !math.IsNaN(v) {
				pts.XYs = append(pts.XYs, plotter.XY{X: x[i], Y: v})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{at(s.se, i), at(s.se, i)})
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		line.Color, line.Width = s.color, vg.Points(1.5)
		points.Color, points.Shape, points.Radius = s.color, draw.CircleGlyph{}, vg.Points(2)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		bars.Color, bars.CapWidth = s.color, vg.Points(4)
		p.Add(line, bars, points)
		thumbs[k] = line
	}
	return thumbs, nil
}

// bars are one model's bars of a grouped bar chart: bar i at x[i] (in data
// units, so that it lines up with the error bars), width wide, height y[i].
type bars struct {
	x, y  []float64
	width float64
	color color.Color
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, x := range b.x {
		rect := []vg.Point{
			{X: trX(x - b.width/2), Y: trY(0)}, {X: trX(x + b.width/2), Y: trY(0)},
			{X: trX(x + b.width/2), Y: trY(b.y[i])}, {X: trX(x - b.width/2), Y: trY(b.y[i])},
		}
		c.FillPolygon(b.color, c.ClipPolygonXY(rect))
	}
}

// DataRange implements plot.DataRanger.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for i, x := range b.x {
		xmin, xmax = math.Min(xmin, x-b.width/2), math.Max(xmax, x+b.width/2)
		ymax = math.Max(ymax, b.y[i])
	}
	return xmin, xmax, 0, ymax
}

// Thumbnail implements plot.Thumbnailer: a filled square.
func (b *bars) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.color, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
}

// addBars adds grouped bars with error bars: group j (at x = j) holds one bar
// per series, side by side; a missing value leaves its slot empty.
func addBars(p *plot.Plot, ss []series) ([]plot.Thumbnailer, error) {
	const group = 0.8 // of the unit between two groups
	w := group / float64(max(len(ss), 1))
	thumbs := make([]plot.Thumbnailer, len(ss))
	for k, s := range ss {
		b := &bars{width: w, color: s.color}
		var pts errorPoints
		for j, v := range s.y {
			if math.IsNaN(v) {
				continue
			}
			x := float64(j) - group/2 + (float64(k)+0.5)*w
			b.x, b.y = append(b.x, x), append(b.y, v)
			if e := at(s.se, j); e > 0 {
				pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: v})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{e, e})
			}
		}
		thumbs[k] = b
		if len(b.x) == 0 {
			continue
		}
		p.Add(b)
		if len(pts.XYs) > 0 {
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			eb.Color, eb.CapWidth = color.Gray{Y: 60}, vg.Points(3)
			p.Add(eb)
		}
	}
	return thumbs, nil
}

// renderFigure draws the panels side by side with one legend, of every series, on
// the right, and returns the SVG.
func renderFigure(panels []*plot.Plot, ss []series, thumbs []plot.Thumbnailer) ([]byte, error) {
	w := vg.Length(len(panels))*panelW + legendW
	c := vgsvg.New(w, figureH)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	for i, p := range panels {
		x0 := vg.Length(i) * panelW
		p.Draw(draw.Canvas{Canvas: dc, Rectangle: vg.Rectangle{Min: vg.Point{X: x0}, Max: vg.Point{X: x0 + panelW, Y: figureH}}})
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Variant = "Sans"
	for k, s := range ss {
		if thumbs[k] != nil {
			legend.Add(s.name, thumbs[k])
		}
	}
	x0 := vg.Length(len(panels)) * panelW
	legend.Draw(draw.Canvas{Canvas: dc, Rectangle: vg.Rectangle{
		Min: vg.Point{X: x0 + vg.Points(8)}, Max: vg.Point{X: w, Y: figureH - vg.Points(24)}}})
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	// The text is measured with Liberation Sans, which has Arial's and
	// Helvetica's metrics: a viewer without it should use one of those.
	return bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:Liberation Sans,Arial,Helvetica,sans-serif;")), nil
}

// integerTicks labels the integers lo..hi.
type integerTicks struct{ lo, hi int }

// Ticks implements plot.Ticker.
func (t integerTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for i := t.lo; i <= t.hi; i++ {
		out = append(out, plot.Tick{Value: float64(i), Label: fmt.Sprint(i)})
	}
	return out
}

// stepTicks labels a y axis from 0 every 0.1, or every 0.2 above 0.5.
type stepTicks struct{}

// Ticks implements plot.Ticker.
func (stepTicks) Ticks(min, max float64) []plot.Tick {
	step := 0.1
	if max > 0.5 {
		step = 0.2
	}
	var out []plot.Tick
	for i := 0; float64(i)*step <= max+1e-9; i++ {
		v := float64(i) * step
		out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("%.1f", v)})
	}
	return out
}

// recallTicks marks the 11 recall levels, labelling every other one.
type recallTicks struct{}

// Ticks implements plot.Ticker.
func (recallTicks) Ticks(min, max float64) []plot.Tick {
	out := make([]plot.Tick, eval.RecallLevels)
	for l := range out {
		v := float64(l) / float64(eval.RecallLevels-1)
		out[l].Value = v
		if l%2 == 0 {
			out[l].Label = fmt.Sprintf("%.1f", v)
		}
	}
	return out
}

// namedTicks labels x = 0, 1, … with names.
type namedTicks []string

// Ticks implements plot.Ticker.
func (t namedTicks) Ticks(min, max float64) []plot.Tick {
	out := make([]plot.Tick, len(t))
	for i, n := range t {
		out[i] = plot.Tick{Value: float64(i), Label: n}
	}
	return out
}

// reportChart returns the figure of one report: P@K for K = 1..10 and the
// 11-point precision-recall curve of every model, with standard errors (the
// two halves of the paper's Figures 8-22).
func reportChart(r *Report) ([]byte, error) {
	names := make([]string, len(r.Models))
	for i, m := range r.Models {
		names[i] = m.Name
	}
	pk, pr := modelSeries(names), modelSeries(names)
	for i, m := range r.Models {
		pk[i].y, pk[i].se = m.PAtK, m.PAtKSE
		pr[i].y, pr[i].se = m.PR, m.PRSE
	}
	ks := make([]float64, 10)
	for i := range ks {
		ks[i] = float64(i + 1)
	}
	levels := make([]float64, eval.RecallLevels)
	for l := range levels {
		levels[l] = float64(l) / float64(eval.RecallLevels-1)
	}
	// Two title lines in both panels, so that their plotting areas line up.
	corpus, rest, _ := strings.Cut(r.label(), ", ")
	pkPlot := newPanel("P@K, "+corpus+"\n"+rest, "K", "P@K", axisMax(pk))
	pkPlot.X.Min, pkPlot.X.Max = 0.5, 10.5
	pkPlot.X.Tick.Marker = integerTicks{1, 10}
	thumbs, err := addCurves(pkPlot, ks, pk)
	if err != nil {
		return nil, err
	}
	prPlot := newPanel("precision-recall\n(11 standard recall levels)", "recall", "precision", axisMax(pr))
	prPlot.X.Min, prPlot.X.Max = -0.03, 1.03
	prPlot.X.Tick.Marker = recallTicks{}
	if _, err := addCurves(prPlot, levels, pr); err != nil {
		return nil, err
	}
	return renderFigure([]*plot.Plot{pkPlot, prPlot}, pk, thumbs)
}

// headlineChart returns grouped bars of MAP and AUC (± SE) per corpus for the
// reports of sel, one bar per model.
func headlineChart(sel []*Report) ([]byte, error) {
	var models, corpora []string
	for _, r := range sel {
		corpora = append(corpora, r.Corpus)
		for _, m := range r.Models {
			if !slices.Contains(models, m.Name) {
				models = append(models, m.Name)
			}
		}
	}
	mapS, aucS := modelSeries(models), modelSeries(models)
	for k, name := range models {
		for _, r := range sel {
			v, e, a, ae := math.NaN(), 0.0, math.NaN(), 0.0
			if m := r.model(name); m != nil {
				v, e, a, ae = m.MAP, m.MAPSE, m.AUC, m.AUCSE
			}
			mapS[k].y, mapS[k].se = append(mapS[k].y, v), append(mapS[k].se, e)
			aucS[k].y, aucS[k].se = append(aucS[k].y, a), append(aucS[k].se, ae)
		}
	}
	var panels []*plot.Plot
	var thumbs []plot.Thumbnailer
	for _, p := range []struct {
		metric string
		ss     []series
	}{{"MAP", mapS}, {"AUC", aucS}} {
		pl := newPanel(p.metric+", extended priming, test subsets", "corpus", p.metric, axisMax(p.ss))
		pl.X.Min, pl.X.Max = -0.5, float64(len(corpora))-0.5
		pl.X.Tick.Marker = namedTicks(corpora)
		t, err := addBars(pl, p.ss)
		if err != nil {
			return nil, err
		}
		panels = append(panels, pl)
		thumbs = t
	}
	return renderFigure(panels, mapS, thumbs)
}
