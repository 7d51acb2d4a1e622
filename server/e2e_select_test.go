package server

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// openSpaceMap opens the whole-space map of modelID (computing it) and
// waits for it to be drawn with its overlay.
func openSpaceMap(t *testing.T, ctx context.Context, base, modelID string) {
	t.Helper()
	step(t, ctx, "whole-space map", 2*time.Minute, openMap(base+"/explorer?view=space&model="+modelID))
	waitJS(t, ctx, "whole-space map drawn", 2*time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true'`)
}

// lasso draws a closed path through the points pts (page pixels) with the
// mouse held down: Chromium turns the mouse events into pointer events.
func lasso(t *testing.T, ctx context.Context, pts [][2]float64) {
	t.Helper()
	held := func(p *input.DispatchMouseEventParams) {
		p.Button = input.MouseButtonLeft
		p.Buttons = 1
		p.ClickCount = 1
	}
	acts := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, pts[0][0], pts[0][1], held)}
	for _, p := range pts[1:] {
		acts = append(acts, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p[0], p[1], held))
	}
	acts = append(acts, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, pts[0][0], pts[0][1], held))
	step(t, ctx, "draw a lasso", 30*time.Second, acts...)
}

// circle is a lasso: n points on the circle of centre (cx, cy) and radius r.
func circle(cx, cy, r float64, n int) [][2]float64 {
	out := make([][2]float64, n)
	for i := range out {
		a := 2 * math.Pi * float64(i) / float64(n)
		out[i] = [2]float64{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return out
}

// gridBox is where a map's grid is on the page.
type gridBox struct{ X, Y, W, H float64 }

func mapGrid(t *testing.T, ctx context.Context, chartID string) gridBox {
	t.Helper()
	g, err := chromedp.Run(ctx, chromedp.Evaluate[gridBox](fmt.Sprintf(`(function () {
		var el = document.getElementById(%q);
		el.scrollIntoView({block: "center"});
		var r = window.taglensCharts[%q].getModel().getComponent("grid", 0).coordinateSystem.getRect(), b = el.getBoundingClientRect();
		return {X: b.left + r.x, Y: b.top + r.y, W: r.width, H: r.height};
	})()`, chartID, chartID)))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// insideCount is a script counting the points of a map inside the lasso
// (page pixels) by the chart's own data-to-pixel conversion: what the
// selection must hold. It needs xs, ys (the points' data) and lasso.
const insideCount = `(function (xs, ys, lasso, chartID) {
	var c = window.taglensCharts[chartID], b = document.getElementById(chartID).getBoundingClientRect(), n = 0;
	for (var i = 0; i < xs.length; i++) {
		var p = c.convertToPixel({gridIndex: 0}, [xs[i], ys[i]]), x = b.left + p[0], y = b.top + p[1], in_ = false;
		for (var a = 0, z = lasso.length - 1; a < lasso.length; z = a++) {
			if ((lasso[a][1] > y) !== (lasso[z][1] > y) && x < (lasso[z][0] - lasso[a][0]) * (y - lasso[a][1]) / (lasso[z][1] - lasso[a][1]) + lasso[a][0]) in_ = !in_;
		}
		if (in_) n++;
	}
	return n;
})`

// TestBrowserLassoSelection draws a lasso on the whole-space map and on a
// term map with the mouse in headless Chromium: the selection holds the
// points inside it, is listed (terms; documents and their tags), the
// histograms draw the selection's counts over the map's, brushing a
// histogram's bar filters the selection, and the CSV has a row a point.
// Neighbours can be listed by cosine distance too.
func TestBrowserLassoSelection(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	val := func(expr string) float64 { t.Helper(); return num(t, ctx, expr) }
	step(t, ctx, "viewport", 10*time.Second, chromedp.EmulateViewport(1400, 1000))
	openSpaceMap(t, ctx, base, modelID)
	step(t, ctx, "lasso mode", 10*time.Second, chromedp.Click(tid("tool-lasso")))
	g := mapGrid(t, ctx, "space")
	path := circle(g.X+g.W/2, g.Y+g.H/2, 0.3*math.Min(g.W, g.H), 40)
	lasso(t, ctx, path)
	waitJS(t, ctx, "the lasso's points selected", 20*time.Second, `Number(document.querySelector('[data-testid="space-map"]').getAttribute("data-selected-points")) > 0`)
	sel := val(`Number(document.querySelector('[data-testid="space-map"]').getAttribute("data-selected-points"))`)
	want, err := chromedp.Run(ctx, chromedp.Evaluate[float64](fmt.Sprintf(`fetch(document.querySelector('[data-testid="space-map"]').getAttribute("data-space-url")).then(function (r) { return r.json(); }).then(function (d) {
		return %s(d.x, d.y, %s, "space"); })`, insideCount, jsPath(path)), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if sel != want {
		t.Errorf("the lasso selected %v points, want the %v inside it", sel, want)
	}
	// Listed, one item a point (up to 200), each a term of the map.
	listed := val(`document.querySelectorAll('[data-testid="selection-list"] [data-testid="selection-item"]').length`)
	if listed != math.Min(sel, 200) {
		t.Errorf("%v points listed, want %v", listed, math.Min(sel, 200))
	}
	summary := str(t, ctx, `document.querySelector('[data-testid="selection-summary"]').textContent`)
	if !strings.Contains(summary, fmt.Sprintf("%v point", sel)) {
		t.Errorf("selection summary %q does not count %v points", summary, sel)
	}
	// The histogram of the selection: its bars sum to the selection, drawn with a height.
	histSel := val(`(function () {
		var s = 0, h = 0;
		document.querySelectorAll('[data-testid="hist-docs"] rect.sel').forEach(function (r) { h += Number(r.getAttribute("height")); });
		document.querySelectorAll('[data-testid="hist-docs"] rect.hit title').forEach(function (t) { var m = /: (\d+) of/.exec(t.textContent); if (m) s += Number(m[1]); });
		return h > 0 ? s : -1;
	})()`)
	if histSel != sel {
		t.Errorf("the tag-frequency histogram of the selection counts %v points (-1: no bar drawn), want %v", histSel, sel)
	}
	topicRows := val(`document.querySelectorAll('[data-testid="hist-topic"] .hist-row .sel').length`)
	if topicRows == 0 {
		t.Error("no LDA topic histogram")
	}
	// The CSV downloaded by its button: a header and a row a selected point.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	// The page's CSP keeps fetch off blob: URLs: the blob is caught as it is made.
	csv, err := chromedp.Run(cctx, chromedp.Evaluate[string](`new Promise(function (done) {
		var click = HTMLAnchorElement.prototype.click, make = URL.createObjectURL, blob = null;
		URL.createObjectURL = function (b) { blob = b; return make.call(URL, b); };
		HTMLAnchorElement.prototype.click = function () {
			HTMLAnchorElement.prototype.click = click;
			URL.createObjectURL = make;
			var name = this.download;
			blob.text().then(function (t) { done(name + "\n" + t); });
		};
		document.querySelector('[data-testid="selection-csv"]').click();
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the CSV download: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\r\n")
	if !strings.HasPrefix(lines[0], "taglens-selection.csv\nterm,documents,oov,lda_topic,x,y") || float64(len(lines)) != sel+1 {
		t.Errorf("the CSV download: %d lines beginning %q, want taglens-selection.csv with a header and %v rows", len(lines), lines[0], sel)
	}
	if q := str(t, ctx, `window.taglensSelect.csvField('a,"b"') + "|" + window.taglensSelect.csvField("plain")`); q != `"a,""b"""|plain` {
		t.Errorf("CSV quoting: %s", q)
	}
	screenshot(t, ctx, shotDir(t), "5i-lasso-space")
	// Brushing the topic histogram's first row keeps the selected points of that topic.
	inTopic := val(`Number(document.querySelector('[data-testid="hist-topic"] .hist-row .sel').getAttribute("data-count"))`)
	step(t, ctx, "brush a histogram", 10*time.Second, chromedp.Click(`[data-testid="hist-topic"] .hist-row`))
	waitJS(t, ctx, "the brush filters the map", 10*time.Second, fmt.Sprintf(`document.querySelector('[data-testid="space-map"]').getAttribute("data-selected-points") === "%v" &&
		!!document.querySelector('[data-testid="hist-topic"] .hist-row.brushed')`, inTopic))
	// Clicking a listed point selects it as a click on the map does.
	first := str(t, ctx, `document.querySelector('[data-testid="selection-item"] button').textContent`)
	step(t, ctx, "pick a listed point", 10*time.Second, chromedp.Click(`[data-testid="selection-item"] button`))
	waitJS(t, ctx, "the listed point selected", 30*time.Second, `document.querySelector('[data-testid="space-selected"] b') && document.querySelector('[data-testid="space-selected"] b').textContent === `+jsString(first))
	// Cosine neighbours: another ranking, distances in [0, 2].
	step(t, ctx, "cosine", 10*time.Second, chromedp.SetValue(tid("space-metric"), "cosine"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="space-metric"]').dispatchEvent(new Event("change"))`))
	waitJS(t, ctx, "cosine neighbours", 30*time.Second, `new URL(location.href).searchParams.get("metric") === "cosine" &&
		document.querySelectorAll('[data-testid="space-neighbours"] li').length > 0 &&
		Array.from(document.querySelectorAll('[data-testid="space-neighbours"] .dist')).every(function (d) { return Number(d.textContent) >= 0 && Number(d.textContent) <= 2; })`)

	// A term map: a box selects instances, listed with their documents and tags.
	step(t, ctx, "term map", time.Minute, openMap(base+"/explorer?model="+modelID+"&term=guitar"))
	waitMapReady(t, ctx, "term=guitar")
	step(t, ctx, "box mode", 10*time.Second, chromedp.Click(tid("tool-box")))
	g = mapGrid(t, ctx, "map")
	box := [][2]float64{{g.X + 2, g.Y + 2}, {g.X + g.W - 2, g.Y + 2}, {g.X + g.W - 2, g.Y + g.H/2}, {g.X + 2, g.Y + g.H/2}}
	lasso(t, ctx, append(box, box[2]))
	waitJS(t, ctx, "the box's instances selected", 20*time.Second, `Number(document.querySelector('[data-testid="map"]').getAttribute("data-selected-points")) > 0`)
	item := str(t, ctx, `document.querySelector('[data-testid="selection-item"]').textContent`)
	if !strings.HasPrefix(item, "guitar · ") || !strings.Contains(item, ",") {
		t.Errorf("a listed instance reads %q, want its term, document and tags", item)
	}
	if n := val(`document.querySelectorAll('[data-testid="hist-doclen"] rect.sel[height]:not([height="0"])').length`); n == 0 {
		t.Error("the document-length histogram draws no bar of the selection")
	}
	screenshot(t, ctx, shotDir(t), "5j-box-term-map")
	// On a phone the selection stays, and the page does not scroll sideways.
	step(t, ctx, "phone", 10*time.Second, chromedp.EmulateViewport(390, 844))
	// The overlay follows the chart's resize at the next frame.
	waitJS(t, ctx, "laid out for a phone, no wider than the screen", 10*time.Second,
		`document.documentElement.clientWidth === 390 && document.documentElement.scrollWidth <= 390 && Number(document.querySelector('[data-testid="map"]').getAttribute("data-selected-points")) > 0`)
	screenshot(t, ctx, shotDir(t), "5n-box-term-map-390")
}

// jsPath writes pts as a JavaScript array of [x, y].
func jsPath(pts [][2]float64) string {
	var b strings.Builder
	b.WriteString("[")
	for i, p := range pts {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "[%g,%g]", p[0], p[1])
	}
	b.WriteString("]")
	return b.String()
}

// str evaluates a string expression.
func str(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// TestBrowserDensityAndLabels checks on the whole-space map in headless
// Chromium that region labels are drawn (tags of the map, not overlapping),
// that the density layer shows when toggled (its canvas inked under the
// chart), that zooming in labels finer regions where they fit, that the
// labels can be turned off, and that on a phone (390 px) the toolbar and
// the histograms fit the screen.
func TestBrowserDensityAndLabels(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "viewport", 10*time.Second, chromedp.EmulateViewport(1400, 1000))
	openSpaceMap(t, ctx, base, modelID)
	type labelState struct {
		N       int
		Texts   []string
		Overlap bool
		Unknown string
		Inked   int
	}
	read := func() labelState {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[labelState](`(function () {
			var box = document.querySelector('[data-testid="space-map"]'), o = box.taglensSelector.overlay, p = o.placed;
			var terms = {}, unknown = "", overlap = false;
			o.x.forEach(function (_, i) { terms[box.taglensSelector.src.item(i).title] = true; });
			p.forEach(function (a, i) {
				a.text.split(" · ").forEach(function (t) { if (!terms[t]) unknown = t; });
				p.slice(i + 1).forEach(function (b) { if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) overlap = true; });
			});
			var c = o.over, px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data, k = 0;
			for (var j = 3; j < px.length; j += 4) if (px[j]) k++;
			return {N: Number(box.getAttribute("data-labels")), Texts: p.map(function (a) { return a.text; }), Overlap: overlap, Unknown: unknown, Inked: k};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	waitJS(t, ctx, "region labels drawn", 20*time.Second, `Number(document.querySelector('[data-testid="space-map"]').getAttribute("data-labels")) > 0`)
	whole := read()
	t.Logf("labels at zoom 1: %q (analysis %s ms)", whole.Texts, str(t, ctx, `document.querySelector('[data-testid="space-map"]').getAttribute("data-density-ms")`))
	if whole.Overlap || whole.Unknown != "" || whole.Inked == 0 {
		t.Errorf("labels %+v: want no overlap, every tag a term of the map, and ink on the overlay", whole)
	}
	// The density layer: off by default, on with its toggle.
	if n := num(t, ctx, `document.querySelectorAll('[data-testid="density-layer"]').length`); n != 0 {
		t.Errorf("a density layer before it is toggled on")
	}
	step(t, ctx, "density on", 10*time.Second, chromedp.Click(tid("toggle-density")))
	waitJS(t, ctx, "density layer drawn", 10*time.Second, `(function () {
		var c = document.querySelector('[data-testid="density-layer"]');
		if (!c || !c.width || document.querySelector('[data-testid="space-map"]').getAttribute("data-density") !== "on") return false;
		var px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data, k = 0;
		for (var j = 3; j < px.length; j += 4) if (px[j]) k++;
		return k > c.width * c.height / 50;
	})()`)
	screenshot(t, ctx, shotDir(t), "5k-density-labels")
	// The SVG export holds the labels drawn and the contours.
	svg := str(t, ctx, `(function () {
		var s = window.taglens.mapSVG("space", "t"), doc = new DOMParser().parseFromString(s, "image/svg+xml");
		var texts = Array.from(doc.querySelectorAll(".region-label text")).map(function (e) { return e.textContent; });
		return texts.join("|") + "#" + doc.querySelectorAll(".density path").length;
	})()`)
	if want := strings.Join(whole.Texts, "|") + "#4"; svg != want {
		t.Errorf("the SVG's region labels and contour paths: %q, want %q", svg, want)
	}
	// Zoomed in 4×: labels of finer regions where they fit.
	step(t, ctx, "zoom in", 10*time.Second, chromedp.Evaluate[chromedp.Void](`(function () {
		var c = window.taglensCharts["space"];
		c.dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: 30, end: 55});
		c.dispatchAction({type: "dataZoom", dataZoomIndex: 1, start: 30, end: 55});
	})()`))
	time.Sleep(time.Second)
	zoomed := read()
	t.Logf("labels at zoom 4: %q", zoomed.Texts)
	if zoomed.Overlap || zoomed.Unknown != "" || strings.Join(zoomed.Texts, "|") == strings.Join(whole.Texts, "|") {
		t.Errorf("zoomed in: labels %+v, want others than at zoom 1 (%q), not overlapping", zoomed, whole.Texts)
	}
	screenshot(t, ctx, shotDir(t), "5l-density-zoomed")
	step(t, ctx, "labels off", 10*time.Second, chromedp.Click(tid("toggle-labels")))
	waitJS(t, ctx, "labels hidden", 10*time.Second, `document.querySelector('[data-testid="space-map"]').getAttribute("data-labels") === "0"`)

	// On a phone: the toolbar and the histograms fit the screen, labels are drawn.
	step(t, ctx, "phone", time.Minute, chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/explorer?view=space&model="+modelID))
	waitJS(t, ctx, "labels on a phone", time.Minute, `(function () {
		var m = document.querySelector('[data-testid="space-map"]');
		return !!m && m.getAttribute("data-ready") === "true" && Number(m.getAttribute("data-labels")) > 0;
	})()`)
	wide := str(t, ctx, `(function () {
		var out = [];
		if (document.documentElement.scrollWidth > 390) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
		document.querySelectorAll('[data-testid="map-tools"] button, [data-testid="map-tools"] label, [data-testid="histograms"] figure').forEach(function (e) {
			var r = e.getBoundingClientRect();
			if (r.right > 390.5 || r.left < -0.5) out.push(e.textContent.trim().slice(0, 20) + " at " + Math.round(r.left) + ".." + Math.round(r.right));
		});
		return out.join("; ");
	})()`)
	if wide != "" {
		t.Errorf("at 390 px: %s", wide)
	}
	step(t, ctx, "density on a phone", 10*time.Second, chromedp.Click(tid("toggle-density")))
	screenshot(t, ctx, shotDir(t), "5m-density-labels-390")
}

func num(t *testing.T, ctx context.Context, expr string) float64 {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}
