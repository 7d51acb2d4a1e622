package server

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	ecrender "github.com/go-echarts/go-echarts/v2/render"

	"github.com/taglens/taglens/internal/palette"
	"github.com/taglens/taglens/ml/eval"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// assetsHost is where go-echarts would load ECharts from: our own embedded copy.
const assetsHost = "/static/vendor/"

func initOpts(id, height string) opts.Initialization {
	return opts.Initialization{ChartID: id, Width: "100%", Height: height, AssetsHost: assetsHost, Theme: "white", Renderer: "canvas"}
}

// snippet renders a chart with RenderSnippet and packages it for views.ChartBox.
// The option JSON goes into a <script type="application/json"> block, so '<', '>'
// and '&' are escaped as JSON unicode escapes: a tag named "</script>" cannot end
// the block. (JSON escapes are valid anywhere in JSON strings, and our options hold
// no JavaScript functions.)
func snippet(r ecrender.Renderer, id string) views.Chart {
	s := r.RenderSnippet()
	opt := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "\u2028", `\u2028`, "\u2029", `\u2029`).Replace(strings.TrimSpace(s.Option))
	opt = strings.TrimSuffix(opt, ";")
	return views.Chart{ID: id, Element: s.Element, Option: opt}
}

func baseGlobals(id, height string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(initOpts(id, height)),
		charts.WithColorsOpts(opts.Colors(palette.Series)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "56", Right: "56", Top: "40", Bottom: "48", ContainLabel: opts.Bool(true)}),
	}
}

// tagUseChart is Figure 3: documents per tag, tags by decreasing use, log y axis.
func tagUseChart(id string, counts []store.TagCount) views.Chart {
	c := charts.NewLine()
	c.SetGlobalOptions(baseGlobals(id, "320px")...)
	c.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: "tag rank", Type: "category", NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Name: "documents", Type: "log"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside"}),
	)
	xs := make([]string, len(counts))
	ys := make([]opts.LineData, len(counts))
	for i, tc := range counts {
		xs[i] = fmt.Sprint(i + 1)
		ys[i] = opts.LineData{Value: tc.Count, Name: tc.Tag}
	}
	c.SetXAxis(xs).AddSeries("documents per tag", ys,
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.15)}))
	return snippet(c, id)
}

// cardinalityChart is Figure 4: number of documents with each number of tags.
func cardinalityChart(id string, card []int) views.Chart {
	c := charts.NewBar()
	c.SetGlobalOptions(baseGlobals(id, "320px")...)
	c.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: "tags per document", NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Name: "documents"}),
	)
	start := 1
	if len(card) <= start {
		start = 0
	}
	var xs []string
	var ys []opts.BarData
	for k := start; k < len(card); k++ {
		xs = append(xs, fmt.Sprint(k))
		ys = append(ys, opts.BarData{Value: card[k]})
	}
	c.SetXAxis(xs).AddSeries("documents", ys)
	return snippet(c, id)
}

// trainingChart plots the training curves: loss of stage 1 and 2 (left axis) and
// validation P@2 of CE and Siamese-CE (right axis), by epoch index across stages.
// Live points are appended in the browser with setOption on the same series
// (static/js/app.js uses the series order: 0 loss stage1, 1 loss stage2,
// 2 P@2 CE, 3 P@2 Siamese-CE).
func trainingChart(id string, log []store.TrainPoint) views.Chart {
	c := charts.NewLine()
	c.SetGlobalOptions(baseGlobals(id, "340px")...)
	c.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Name: "epoch", Type: "value", NameLocation: "middle", NameGap: 28, Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Name: "loss", Type: "value", Scale: opts.Bool(true)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0"}),
	)
	c.ExtendYAxis(opts.YAxis{Name: "validation P@2", Type: "value", Min: 0, Max: 1, Position: "right"})
	var l1, l2, p1, p2 []opts.LineData
	for i, p := range log {
		x := i + 1
		switch p.Stage {
		case "stage1":
			l1 = append(l1, opts.LineData{Value: []any{x, p.Loss}})
			if p.ValidP2 != nil {
				p1 = append(p1, opts.LineData{Value: []any{x, *p.ValidP2}})
			}
		case "stage2":
			l2 = append(l2, opts.LineData{Value: []any{x, p.Loss}})
			if p.ValidP2 != nil {
				p2 = append(p2, opts.LineData{Value: []any{x, *p.ValidP2}})
			}
		}
	}
	c.AddSeries("loss (stage 1, Eq. 5)", l1)
	c.AddSeries("loss (stage 2, Eq. 7)", l2)
	c.AddSeries("P@2 CE", p1, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	c.AddSeries("P@2 Siamese-CE", p2, charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}))
	return snippet(c, id)
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
	return withOptions(snippet(c, id), map[string]map[string]any{"tooltip": mapTooltip, "toolbox": mapToolbox})
}

// mapTooltip completes the explorer's tooltip (go-echarts has no fields for
// these): it lists a document's tags, so it stays inside the chart and wraps
// at a readable width instead of running off the edge on one line (ECharts
// styles it white-space: nowrap; extraCssText comes last and wins).
var mapTooltip = map[string]any{
	"confine":      true,
	"extraCssText": "max-width: min(22rem, 90%); white-space: normal; overflow-wrap: anywhere;",
}

// mapToolbox saves the map as it is shown (zoom, colours, overlays) as a PNG
// image at twice the screen's resolution, named after the page, without the
// zoom slider and the toolbox itself. (A map drawn by the WebGL layer saves
// through static/js/glmap.js, which leaves them out alike.)
var mapToolbox = map[string]any{
	"show":  true,
	"right": "8",
	"top":   "24",
	"feature": map[string]any{
		"saveAsImage": map[string]any{"title": "Save as PNG", "name": "taglens-map", "pixelRatio": 2,
			"excludeComponents": []string{"toolbox", "dataZoom"}},
	},
}

// withOptions merges fields into top-level objects of a chart's option JSON.
func withOptions(ch views.Chart, extra map[string]map[string]any) views.Chart {
	var opt map[string]any
	if err := json.Unmarshal([]byte(ch.Option), &opt); err != nil {
		panic(fmt.Sprintf("chart %s: option JSON: %v", ch.ID, err)) // snippet always writes JSON
	}
	for key, fields := range extra {
		m, _ := opt[key].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for k, v := range fields {
			m[k] = v
		}
		opt[key] = m
	}
	b, err := json.Marshal(opt) // escapes <, >, &, U+2028 and U+2029 as snippet does
	if err != nil {
		panic(err)
	}
	ch.Option = string(b)
	return ch
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
	eb := charts.NewBoxPlot()
	eb.SetXAxis(names)
	eb.AddSeries(label+" ± SE", errorBars(v, se), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#333", BorderColor: "#333"}))
	bar.Overlap(eb)
	return snippet(bar, id)
}

// errorBars returns boxplot items [mean−se, mean, mean, mean, mean+se]: ECharts has
// no error-bar series and our options carry no JavaScript, so the option holds
// degenerate box plots (readable as they are) and static/js/app.js redraws each
// boxplot series as centred whiskers with a custom series.
func errorBars(mean, se []float64) []opts.BoxPlotData {
	out := make([]opts.BoxPlotData, len(mean))
	for i := range mean {
		s := 0.0
		if i < len(se) {
			s = se[i]
		}
		out[i] = opts.BoxPlotData{Value: []float64{mean[i] - s, mean[i], mean[i], mean[i], mean[i] + s}}
	}
	return out
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
	linesWithErrorBars(line, ks, rep, func(m eval.ModelReport) ([]float64, []float64) { return m.PAtK, m.PAtKSE })
	return snippet(line, "patk")
}

// linesWithErrorBars adds one line per model of rep over the x categories, with
// its standard errors as error bars in the model's colour; values returns a
// model's points and their standard errors. Lines whose colours are close
// (seriesStyles) differ in dash and symbol.
func linesWithErrorBars(line *charts.Line, x []string, rep *eval.Report, values func(eval.ModelReport) ([]float64, []float64)) {
	line.SetXAxis(x)
	bars := charts.NewBoxPlot()
	bars.SetXAxis(x)
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
		bars.AddSeries(m.Name, errorBars(v, se), charts.WithItemStyleOpts(opts.ItemStyle{Color: cols[i], BorderColor: cols[i]}))
	}
	line.Overlap(bars)
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
	linesWithErrorBars(pr, levels, rep, func(m eval.ModelReport) ([]float64, []float64) { return m.PR, m.PRSE })
	return snippet(pr, "pr")
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
