package server

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/taglens/taglens/internal/palette"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

func initOpts(id, height string) opts.Initialization {
	return opts.Initialization{ChartID: id, Width: "100%", Height: height, Theme: "white", Renderer: "canvas"}
}

// echart is a go-echarts chart: Validate puts its axes' data in place,
// JSON returns its typed options.
type echart interface {
	Validate()
	JSON() map[string]any
}

// chartOf is the view of chart c: its element's id and height, and its typed
// options, which views.ChartBox encodes once, with templ.JSONScript (no
// re-parse: the options are never a string on the server).
func chartOf(c echart, id, height string) views.Chart {
	c.Validate()
	return views.Chart{ID: id, Height: height, Option: c.JSON()}
}

func baseGlobals(id, height string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(initOpts(id, height)),
		charts.WithColorsOpts(opts.Colors(palette.Series)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "56", Right: "56", Top: "40", Bottom: "48", ContainLabel: opts.Bool(true)}),
	}
}

// tagUseChart is Figure 3: documents per tag by tag rank, on log axes. It
// plots the stored statistics, bounded whatever the vocabulary: every rank of
// the most used tags (named), then the sampled rest of the curve (TagUseTail).
func tagUseChart(id string, st store.CorpusStats) views.Chart {
	c := charts.NewLine()
	c.SetGlobalOptions(baseGlobals(id, "320px")...)
	c.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: "tag rank", Type: "log", Min: 1, NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Name: "documents", Type: "log"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside"}),
	)
	ys := make([]opts.LineData, 0, len(st.TagCounts)+len(st.TagUseTail))
	for i, tc := range st.TagCounts {
		ys = append(ys, opts.LineData{Value: []int{i + 1, tc.Count}, Name: tc.Tag})
	}
	for _, p := range st.TagUseTail {
		ys = append(ys, opts.LineData{Value: []int{p.Rank, p.Count}})
	}
	c.AddSeries("documents per tag", ys,
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.15)}))
	return chartOf(c, id, "320px")
}

// cardinalityChart is Figure 4: number of documents with each number of tags.
// A long-tailed corpus has few of its numbers of tags used (pubmed-genes:
// 558 of 8,303, up to 8,302 tags), so only those are bars, placed on a value
// axis: the page is not thousands of empty bars. Past 100 tags a document
// both axes are logarithmic, or the tail would be invisible.
func cardinalityChart(id string, card []int) views.Chart {
	c := charts.NewBar()
	c.SetGlobalOptions(baseGlobals(id, "320px")...)
	x := opts.XAxis{Name: "tags per document", Type: "value", Min: 0, NameLocation: "middle", NameGap: 28}
	y := opts.YAxis{Name: "documents"}
	if len(card) > 101 {
		x.Type, x.Min, y.Type = "log", 1, "log"
	}
	c.SetGlobalOptions(charts.WithXAxisOpts(x), charts.WithYAxisOpts(y))
	var ys []opts.BarData
	for k := 1; k < len(card); k++ {
		if card[k] > 0 {
			ys = append(ys, opts.BarData{Value: []int{k, card[k]}})
		}
	}
	c.AddSeries("documents", ys)
	return chartOf(c, id, "320px")
}

// trainingChart plots the training curves: loss of stage 1 and 2 (left axis)
// and the validation extended MAP of each evaluation of CE and Siamese-CE
// (right axis; the default early-stopping criterion, design.md decision 8),
// by epoch index across stages; a curve stored before the MAP was recorded
// plots its validation P@2 instead, and says so. Live points are appended in
// the browser with setOption on the same series (static/js/app.js uses the
// series order: 0 loss stage1, 1 loss stage2, 2 CE, 3 Siamese-CE).
func trainingChart(id string, log []store.TrainPoint) views.Chart {
	withMAP := len(log) == 0
	for _, p := range log {
		withMAP = withMAP || p.ValidMAP != nil
	}
	valid, name := func(p store.TrainPoint) *float64 { return p.ValidMAP }, "validation extended MAP"
	if !withMAP {
		valid, name = func(p store.TrainPoint) *float64 { return p.ValidP2 }, "validation P@2"
	}
	c := charts.NewLine()
	c.SetGlobalOptions(baseGlobals(id, "340px")...)
	c.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: "epoch", Type: "value", NameLocation: "middle", NameGap: 28, Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Name: "loss", Type: "value", Scale: opts.Bool(true)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0"}),
	)
	c.ExtendYAxis(opts.YAxis{Name: name, Type: "value", Min: 0, Max: 1, Position: "right"})
	var l1, l2, p1, p2 []opts.LineData
	for i, p := range log {
		x := i + 1
		switch p.Stage {
		case "stage1":
			l1 = append(l1, opts.LineData{Value: []any{x, p.Loss}})
			if v := valid(p); v != nil {
				p1 = append(p1, opts.LineData{Value: []any{x, *v}})
			}
		case "stage2":
			l2 = append(l2, opts.LineData{Value: []any{x, p.Loss}})
			if v := valid(p); v != nil {
				p2 = append(p2, opts.LineData{Value: []any{x, *v}})
			}
		}
	}
	short := "MAP"
	if !withMAP {
		short = "P@2"
	}
	c.AddSeries("loss (stage 1, Eq. 5)", l1)
	c.AddSeries("loss (stage 2, Eq. 7)", l2)
	c.AddSeries(short+" CE", p1, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	c.AddSeries(short+" Siamese-CE", p2, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	return chartOf(c, id, "340px")
}

// mapChart is the explorer's empty scatter (axes, zoom, tooltip); its points are
// loaded from the map API by static/js/app.js and set with setOption.
func mapChart(id string) views.Chart {
	c := charts.NewScatter()
	c.SetGlobalOptions(
		charts.WithInitializationOpts(initOpts(id, "620px")),
		charts.WithColorsOpts(opts.Colors(palette.Series)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithGridOpts(opts.Grid{Left: "24", Right: "24", Top: "40", Bottom: "56", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Scale: opts.Bool(true), SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eef0f3"}}, AxisLine: &opts.AxisLine{OnZero: opts.Bool(false)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Scale: opts.Bool(true), SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#eef0f3"}}, AxisLine: &opts.AxisLine{OnZero: opts.Bool(false)}}),
		charts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: []int{0}},
			opts.DataZoom{Type: "inside", YAxisIndex: []int{0}},
			opts.DataZoom{Type: "slider", XAxisIndex: []int{0}},
		),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0", Type: "scroll"}),
	)
	c.AddSeries("points", nil)
	ch := chartOf(c, id, "620px")
	opt := ch.Option.(map[string]any)
	opt["tooltip"] = mapTooltip{Tooltip: c.Tooltip, Confine: true,
		ExtraCSSText: "max-width: min(22rem, 90%); white-space: normal; overflow-wrap: anywhere;"}
	opt["toolbox"] = mapToolbox
	return ch
}

// mapTooltip is the explorer's tooltip with what go-echarts has no fields
// for: it lists a document's tags, so it stays inside the chart (Confine)
// and wraps at a readable width instead of running off the edge on one line
// (ECharts styles it white-space: nowrap; extraCssText comes last and wins).
type mapTooltip struct {
	opts.Tooltip
	Confine      bool   `json:"confine"`
	ExtraCSSText string `json:"extraCssText"`
}

// mapToolbox saves the map as it is shown (zoom, colours, overlays) as a PNG
// image at twice the screen's resolution, named after the page, without the
// zoom slider and the toolbox itself. (A map drawn by the WebGL layer saves
// through static/js/glmap.js, which leaves them out alike.)
var mapToolbox = toolbox{Show: true, Right: "8", Top: "24", Feature: toolboxFeatures{SaveAsImage: saveAsImage{
	Title: "Save as PNG", Name: "taglens-map", PixelRatio: 2, ExcludeComponents: []string{"toolbox", "dataZoom"}}}}

// toolbox, toolboxFeatures and saveAsImage are the ECharts toolbox options
// the map uses (go-echarts' have no pixelRatio or excludeComponents).
type toolbox struct {
	Show    bool            `json:"show"`
	Right   string          `json:"right"`
	Top     string          `json:"top"`
	Feature toolboxFeatures `json:"feature"`
}

type toolboxFeatures struct {
	SaveAsImage saveAsImage `json:"saveAsImage"`
}

type saveAsImage struct {
	Title             string   `json:"title"`
	Name              string   `json:"name"`
	PixelRatio        int      `json:"pixelRatio"`
	ExcludeComponents []string `json:"excludeComponents"`
}

// barWithSE is a bar chart of one figure per model with ±SE whiskers, its y
// axis from 0 to yMax (0: ECharts chooses).
func barWithSE(id, label string, names []string, v, se []float64, col string, yMax float64) views.Chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(baseGlobals(id, "320px")...)
	y := opts.YAxis{Name: label, Min: 0}
	if yMax > 0 {
		y.Max = yMax
	}
	bar.SetGlobalOptions(
		charts.WithYAxisOpts(y),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 20, Interval: "0"}}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
	)
	bar.SetXAxis(names)
	d := make([]opts.BarData, len(v))
	for i := range v {
		d[i] = opts.BarData{Value: v[i]}
	}
	bar.AddSeries(label, d, charts.WithItemStyleOpts(opts.ItemStyle{Color: col}))
	return withErrorBars(chartOf(bar, id, "320px"), newErrorBars(label+" ± SE", "#333", v, se))
}

// errorBars is a series of ±SE whiskers, one per category: ECharts has no
// error-bar series, so it is a custom series whose items are [category,
// mean−se, mean+se] (encode: x the category, y both ends); its drawing, a
// function that JSON options cannot hold, is static/js/app.js's
// (whiskers: a custom series without renderItem gets it there).
type errorBars struct {
	Type      string         `json:"type"` // "custom"
	Name      string         `json:"name"`
	Data      [][3]float64   `json:"data"`
	Encode    errorBarEncode `json:"encode"`
	Z         int            `json:"z"`      // above the bars and lines
	Silent    bool           `json:"silent"` // no hover, no tooltip
	Tooltip   opts.Tooltip   `json:"tooltip"`
	ItemStyle opts.ItemStyle `json:"itemStyle"` // the whiskers' colour
}

type errorBarEncode struct {
	X int    `json:"x"`
	Y [2]int `json:"y"`
}

// newErrorBars is the error-bar series name of mean ± se in colour col.
func newErrorBars(name, col string, mean, se []float64) errorBars {
	eb := errorBars{Type: "custom", Name: name, Data: make([][3]float64, len(mean)), Encode: errorBarEncode{X: 0, Y: [2]int{1, 2}},
		Z: 10, Silent: true, Tooltip: opts.Tooltip{Show: opts.Bool(false)}, ItemStyle: opts.ItemStyle{Color: col}}
	for i := range mean {
		s := 0.0
		if i < len(se) {
			s = se[i]
		}
		eb.Data[i] = [3]float64{float64(i), mean[i] - s, mean[i] + s}
	}
	return eb
}

// withErrorBars appends error-bar series to a chart's series.
func withErrorBars(ch views.Chart, bars ...errorBars) views.Chart {
	opt := ch.Option.(map[string]any)
	var series []any
	for _, s := range opt["series"].(charts.MultiSeries) {
		series = append(series, s)
	}
	for _, b := range bars {
		series = append(series, b)
	}
	opt["series"] = series
	return ch
}

// fillEvalCharts builds the comparison charts and the table of a report.
func fillEvalCharts(vm *views.EvalPage, rep *eval.Report) {
	vm.Interp = "Precision-recall interpolation: " + rep.Interpolation
	vm.Notes = rep.Notes
	fillEvalScores(vm, rep)
	fillEvalPValues(vm, rep)
	vm.PAtK = patkChart(rep)
	vm.MAP, vm.AUC = mapAUCCharts(rep, "map", "auc", 0, 0)
	vm.PR = prChart(rep)
}

// mapAUCCharts returns the MAP and the AUC bars of a report's models with
// ±SE whiskers, one chart each, with the given chart ids and y axes up to
// mapMax and aucMax (0: ECharts chooses).
func mapAUCCharts(rep *eval.Report, mapID, aucID string, mapMax, aucMax float64) (views.Chart, views.Chart) {
	names := make([]string, len(rep.Models))
	var mapv, mapse, aucv, aucse []float64
	for i, m := range rep.Models {
		names[i] = m.Name
		mapv, mapse = append(mapv, m.MAP), append(mapse, m.MAPSE)
		aucv, aucse = append(aucv, m.AUC), append(aucse, m.AUCSE)
	}
	return barWithSE(mapID, "MAP", names, mapv, mapse, palette.Series[0], mapMax),
		barWithSE(aucID, "AUC", names, aucv, aucse, palette.Series[2], aucMax)
}

// sharedMax is the top of a y axis that every report of reps fits under:
// the largest mean + SE that value returns over their models, rounded up
// to a tenth (at least 0.1).
func sharedMax(reps []*eval.Report, value func(eval.ModelReport) (v, se float64)) float64 {
	top := 0.0
	for _, r := range reps {
		for _, m := range r.Models {
			v, se := value(m)
			top = max(top, v+max(se, 0))
		}
	}
	return max(0.1, math.Ceil(top*10-1e-9)/10)
}

// fillEvalScores fills the table of scores, one row per model, the best MAP
// marked.
func fillEvalScores(vm *views.EvalPage, rep *eval.Report) {
	best := -1
	for i, m := range rep.Models {
		if best < 0 || m.MAP > rep.Models[best].MAP {
			best = i
		}
	}
	pm := func(v, se float64) string { return fmt.Sprintf("%.3f ± %.3f", v, se) }
	for i, m := range rep.Models {
		at := func(k int) string {
			if k-1 < len(m.PAtK) {
				return pm(m.PAtK[k-1], at(m.PAtKSE, k-1))
			}
			return "—"
		}
		vm.Scores = append(vm.Scores, views.ModelScore{Name: m.Name, PAt1: at(1), PAt2: at(2), PAt5: at(5),
			MAP: pm(m.MAP, m.MAPSE), AUC: pm(m.AUC, m.AUCSE), Queries: m.Queries, Best: i == best})
	}
}

// fillEvalPValues fills the p-values of the report, one row per answer.
func fillEvalPValues(vm *views.EvalPage, rep *eval.Report) {
	metrics := make([]string, 0, len(rep.PValues))
	for k := range rep.PValues {
		metrics = append(metrics, k)
	}
	sort.Slice(metrics, func(i, j int) bool { return metricOrder(metrics[i]) < metricOrder(metrics[j]) })
	// Metrics with the same answer share one row (e.g. every p-value n/a).
	var groups [][]string
	var values []string
	for _, k := range metrics {
		pv := rep.PValues[k]
		v := "n/a (a single trial, or no variance across trials)"
		if pv.P != nil {
			v = fmt.Sprintf("p = %.3g", *pv.P)
		}
		v = fmt.Sprintf("%s vs %s: %s", pv.Best, pv.RunnerUp, v)
		if i := slices.Index(values, v); i >= 0 {
			groups[i] = append(groups[i], k)
			continue
		}
		values = append(values, v)
		groups = append(groups, []string{k})
	}
	for i, g := range groups {
		vm.PValues = append(vm.PValues, views.KV{Key: metricRange(g), Value: values[i]})
	}
}

// patkChart is the chart of P@K, K = 1..10, with error bars.
func patkChart(rep *eval.Report) views.Chart {
	ks := make([]string, eval.MaxK)
	for i := range ks {
		ks[i] = fmt.Sprint(i + 1)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(baseGlobals("patk", "380px")...)
	line.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: "K", NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Name: "P@K", Min: 0}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0", Type: "scroll"}),
	)
	bars := linesWithErrorBars(line, ks, rep, func(m eval.ModelReport) ([]float64, []float64) { return m.PAtK, m.PAtKSE })
	return withErrorBars(chartOf(line, "patk", "380px"), bars...)
}

// linesWithErrorBars adds one line per model of rep over the x categories,
// and returns its standard errors as error bars in the model's colour;
// values returns a model's points and their standard errors. Lines whose
// colours are close (seriesStyles) differ in dash and symbol.
func linesWithErrorBars(line *charts.Line, x []string, rep *eval.Report, values func(eval.ModelReport) ([]float64, []float64)) []errorBars {
	line.SetXAxis(x)
	var bars []errorBars
	cols := make([]string, len(rep.Models))
	for i, m := range rep.Models {
		cols[i] = palette.Model(m.Name, i)
	}
	styles := seriesStyles(cols)
	for i, m := range rep.Models {
		v, se := values(m)
		ys := make([]opts.LineData, len(v))
		for i, y := range v {
			ys[i] = opts.LineData{Value: y}
		}
		st := lineStyles[styles[i]]
		line.AddSeries(m.Name, ys, charts.WithItemStyleOpts(opts.ItemStyle{Color: cols[i]}),
			charts.WithLineStyleOpts(opts.LineStyle{Type: st.dash, Width: 2}),
			charts.WithLineChartOpts(opts.LineChart{Symbol: st.symbol, SymbolSize: 7, ShowSymbol: opts.Bool(true)}))
		bars = append(bars, newErrorBars(m.Name, cols[i], v, se))
	}
	return bars
}

// lineStyles are the dash and symbol pairs that tell apart lines of close
// colours; the first is the default.
var lineStyles = []struct{ dash, symbol string }{
	{"solid", "circle"}, {"dashed", "rect"}, {"dotted", "triangle"}, {"dashed", "diamond"}, {"dotted", "roundRect"},
	{"solid", "triangle"}, {"solid", "rect"}, {"dashed", "circle"}, {"dotted", "diamond"},
}

// closeColours is the ΔE*ab under which two series' colours read as one hue.
const closeColours = 30

// seriesStyles gives each colour of cols (the series of one chart, in
// order) an index into lineStyles: the first one that no earlier series of
// a close colour has.
func seriesStyles(cols []string) []int {
	out := make([]int, len(cols))
	for j := range cols {
		taken := map[int]bool{}
		for i := range j {
			if palette.Distance(cols[i], cols[j]) < closeColours {
				taken[out[i]] = true
			}
		}
		for taken[out[j]] && out[j] < len(lineStyles)-1 {
			out[j]++
		}
	}
	return out
}

// prChart is the chart of the precision at the 11 standard recall levels,
// with error bars.
func prChart(rep *eval.Report) views.Chart {
	pr := charts.NewLine()
	pr.SetGlobalOptions(baseGlobals("pr", "340px")...)
	pr.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: "recall", NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Name: "precision", Min: 0, Max: 1}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0", Type: "scroll"}),
	)
	levels := make([]string, eval.RecallLevels)
	for i := range levels {
		levels[i] = fmt.Sprintf("%.1f", float64(i)/10)
	}
	bars := linesWithErrorBars(pr, levels, rep, func(m eval.ModelReport) ([]float64, []float64) { return m.PR, m.PRSE })
	return withErrorBars(chartOf(pr, "pr", "340px"), bars...)
}

func at(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// metricOrder sorts p-value rows: p@1..p@10, then map, then auc.
func metricOrder(k string) int {
	var n int
	if _, err := fmt.Sscanf(k, "p@%d", &n); err == nil {
		return n
	}
	if k == "map" {
		return 100
	}
	return 101
}

// metricRange names a list of metrics (in metricOrder) compactly: a run of
// three or more consecutive P@K becomes "p@1–p@10".
func metricRange(ms []string) string {
	var parts []string
	for i := 0; i < len(ms); {
		j := i
		for j+1 < len(ms) && strings.HasPrefix(ms[j+1], "p@") && strings.HasPrefix(ms[i], "p@") && metricOrder(ms[j+1]) == metricOrder(ms[j])+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, ms[i]+"–"+ms[j])
		} else {
			parts = append(parts, ms[i:j+1]...)
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
