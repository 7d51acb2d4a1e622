package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestBrowserMapWebGL opens a whole-space map of 100,000 terms and a term map
// of 100,000 points with the WebGL layer (?gl=on) in headless Chromium: a
// WebGL canvas under the chart draws all the plain points (the ECharts series
// hold only the highlighted ones), a hover over a WebGL point shows its
// tooltip, a click on it selects it, and the search still lights up matches.
func TestBrowserMapWebGL(t *testing.T) {
	ctx := browser(t)
	_ = chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			t.Logf("page exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception.Description)
		}
	})
	ts, corpusID, modelID := trainedServer(t)
	putSyntheticSpace(t, ts, modelID, 100000)
	b, err := json.Marshal(syntheticMap(100000, loadTerm, 5))
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.store.PutMap(context.Background(), modelID, mapKey("siamese-ce", loadTerm, []string{corpusID}), b); err != nil {
		t.Fatal(err)
	}
	ts.maps.dropModel(modelID)
	base := liveServer(t, ts)

	step(t, ctx, "open the 100,000-term map", time.Minute,
		openMap(fmt.Sprintf("%s/explorer?view=space&model=%s&seed=%d&gl=on", base, modelID, benchSpaceSeed)))
	waitGLDrawn(t, ctx, "space-map", "space", `s[0].data.length === 0 && s[4].data.length === 25`)
	step(t, ctx, "open a zoomed view", time.Minute,
		openMap(fmt.Sprintf("%s/explorer?view=space&model=%s&seed=%d&gl=on&zx=30,55&zy=40,70", base, modelID, benchSpaceSeed)))
	// Both ranges restored; the layer sends only the points of the cells in view.
	waitGLDrawn(t, ctx, "space-map", "space", `(function () {
		var z = window.taglensCharts["space"].getOption().dataZoom, L = window.taglensGL.layers["space"];
		return z[0].start === 30 && z[1].start === 40 && z[1].end === 70 && L.vertices < 50000;
	})()`)
	step(t, ctx, "open the whole map again", time.Minute,
		openMap(fmt.Sprintf("%s/explorer?view=space&model=%s&seed=%d&gl=on", base, modelID, benchSpaceSeed)))
	waitGLDrawn(t, ctx, "space-map", "space", `true`)
	glGesture(t, ctx, "space")
	hoverGLPoint(t, ctx, "space", "training documents")
	clickAtPointer(t, ctx)
	waitJS(t, ctx, "the clicked term selected", 30*time.Second, `(function () {
		var b = document.querySelector('[data-testid="space-selected"] b');
		var tip = Array.from(document.querySelectorAll('#space div b')).map(function (e) { return e.textContent; });
		return !!b && tip.indexOf(b.textContent) >= 0 && location.search.indexOf("sel=") >= 0 &&
			window.taglensCharts["space"].getOption().series[3].data.length === 1;
	})()`)
	step(t, ctx, "search", time.Minute, chromedp.SendKeys(tid("space-search"), "term-0001"))
	waitJS(t, ctx, "matches lit up, hidden from the layer", 30*time.Second, `(function () {
		var n = Number(document.querySelector('[data-testid="space-status"]').getAttribute('data-matches'));
		var L = window.taglensGL.layers["space"];
		return n > 0 && window.taglensCharts["space"].getOption().series[1].data.length === n && L.drawn < 100000 - n;
	})()`)
	screenshot(t, ctx, shotDir(t), "5d-space-map-webgl")
	// Isolate the matches and the selection: the layer draws nothing; then
	// colour the terms by frequency: the layer draws them again.
	step(t, ctx, "isolate", 10*time.Second, chromedp.Click(tid("space-isolate")))
	waitJS(t, ctx, "nothing drawn by the layer", 10*time.Second,
		`window.taglensGL.layers["space"].drawn === 0 && location.search.indexOf("isolate=1") >= 0`)
	step(t, ctx, "colour by frequency", 10*time.Second, chromedp.Click(tid("space-isolate")),
		chromedp.SetValue(tid("space-color"), "docs"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="space-color"]').dispatchEvent(new Event("change"))`))
	waitJS(t, ctx, "coloured by frequency", 10*time.Second, `(function () {
		var L = window.taglensGL.layers["space"], c = L.rgba, k = {};
		for (var i = 0; i < c.length; i += 4) if (c[i + 3]) k[c[i] + "," + c[i + 1] + "," + c[i + 2]] = true;
		return L.drawn > 90000 && Object.keys(k).length > 10 && window.taglensCharts["space"].getOption().visualMap.length === 1;
	})()`)

	step(t, ctx, "open the 100,000-point term map", time.Minute,
		openMap(fmt.Sprintf("%s/explorer?model=%s&term=%s&gl=on", base, modelID, loadTerm)))
	waitGLDrawn(t, ctx, "map", "map", `s.filter(function (x) { return x.data.length > 0; }).length === 0`)
	hoverGLPoint(t, ctx, "map", "document doc-")
	clickAtPointer(t, ctx)
	waitJS(t, ctx, "the clicked instance selected", 30*time.Second,
		`document.getElementById("selected").textContent.indexOf("in document doc-") >= 0`)
	// The toolbox's PNG holds the layer's points (ECharts' own would not):
	// blue-ish pixels of the first sense cluster's colour in the composite.
	waitJS(t, ctx, "the saved image holds the WebGL points", 20*time.Second, `(function () {
		var c = window.taglensCharts["map"], out = window.taglensGL.composite(c, window.taglensGL.layers["map"]);
		var px = out.getContext("2d").getImageData(0, 0, out.width, out.height).data, k = 0;
		for (var i = 0; i < px.length; i += 4) if (px[i + 2] > 120 && px[i] < 80) k++;
		return c.getOption().toolbox[0].feature.myGLSave.show === true && k > 5000;
	})()`)
	screenshot(t, ctx, shotDir(t), "5e-term-map-webgl")
}

// waitGLDrawn waits for the map in box (chart id) to be drawn by the WebGL
// layer with all its 100,000 points (a WebGL canvas with ink on it) and for
// the chart's series s to satisfy cond.
func waitGLDrawn(t *testing.T, ctx context.Context, box, id, cond string) {
	t.Helper()
	waitJS(t, ctx, "map ready", 2*time.Minute, fmt.Sprintf(`document.querySelector('[data-testid=%q]') && document.querySelector('[data-testid=%q]').getAttribute('data-ready') === 'true'`, box, box))
	state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(function () {
		var box = document.querySelector('[data-testid=%q]'), L = window.taglensGL.layers[%q];
		return JSON.stringify({renderer: box.getAttribute('data-renderer'), layer: !!L, n: L && L.n, drawn: L && L.drawn, draws: L && L.draws,
			view: L && L.view, series: window.taglensCharts[%q].getOption().series.map(function (s) { return s.name + ':' + s.data.length; })});
	})()`, box, id, id)))
	t.Logf("%s: %s", box, state)
	waitJS(t, ctx, "drawn with the WebGL layer", 2*time.Minute, fmt.Sprintf(`(function () {
		var box = document.querySelector('[data-testid=%q]');
		if (!box || box.getAttribute('data-ready') !== 'true' || box.getAttribute('data-renderer') !== 'webgl') return false;
		var c = box.querySelector('canvas[data-testid="gl-layer"]'), L = window.taglensGL.layers[%q];
		var s = window.taglensCharts[%q].getOption().series;
		return !!c && !!c.getContext('webgl') && L.n === 100000 && L.drawn === 100000 && L.draws > 0 && L.inked() > 5000 && (%s);
	})()`, box, id, id, cond))
}

// hoverGLPoint moves the mouse over a point that only the WebGL layer draws
// (one the layer picks at its own pixel) and waits for the tooltip to show want.
func hoverGLPoint(t *testing.T, ctx context.Context, id, want string) {
	t.Helper()
	type xy struct{ X, Y float64 }
	time.Sleep(500 * time.Millisecond)
	pt, err := chromedp.Run(ctx, chromedp.Evaluate[xy](fmt.Sprintf(`(function () {
		var el = document.getElementById(%q);
		el.scrollIntoView({block: "center"});
		var L = window.taglensGL.layers[%q], r = el.getBoundingClientRect(), v = L.view;
		for (var i = 0; i < L.n; i += 97) {
			var p = L.pixelOf(i);
			if (Math.abs(p[0] - v.px) < v.clip.width / 3 && Math.abs(p[1] - v.py) < v.clip.height / 3 && L.pick(p[0], p[1], 6) === i)
				return {X: r.left + p[0], Y: r.top + p[1]};
		}
		return {X: -1, Y: -1};
	})()`, id, id)))
	if err != nil || pt.X < 0 {
		t.Fatalf("no WebGL point to hover (%v)", err)
	}
	err = chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt.X-20, pt.Y-20),
		chromedp.Sleep(50*time.Millisecond),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt.X, pt.Y))
	if err != nil {
		t.Fatal(err)
	}
	lastPointer = pt
	waitJS(t, ctx, "tooltip over a WebGL point", 20*time.Second, fmt.Sprintf(`Array.from(document.querySelectorAll('#%s div')).some(function (d) {
		return d.style.zIndex === '9999999' && d.style.display !== 'none' && d.style.opacity !== '0' && d.textContent.indexOf(%q) >= 0; })`, id, want))
}

// lastPointer is where hoverGLPoint left the mouse.
var lastPointer struct{ X, Y float64 }

// clickAtPointer clicks where the mouse is.
func clickAtPointer(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.MouseClickXY(lastPointer.X, lastPointer.Y)); err != nil {
		t.Fatal(err)
	}
}

// glGesture pans the map of chart id by 12 zoom moves, one a frame, and
// checks the layer's gesture path: it moved its last full frame rather than
// drawing each view, the moved frame puts sampled points where the view puts
// them (within a pixel), and once the gesture paused it drew the final view
// in full.
func glGesture(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	type result struct {
		Draws, Moves int
		Worst        float64
		Sampled      int
	}
	r, err := chromedp.Run(ctx, chromedp.Evaluate[result](fmt.Sprintf(`new Promise(function (done) {
		var c = window.taglensCharts[%q], L = window.taglensGL.layers[%q], i = 0;
		var z = c.getOption().dataZoom[0], d0 = L.draws, m0 = L.moves;
		function frame() {
			// Frames 4 and 8 stall for 400 ms (longer than the layer's idle
			// time), as frames do on a loaded machine: the gesture goes on.
			if (i === 4 || i === 8) for (var t0 = performance.now(); performance.now() - t0 < 400;) {}
			c.dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: z.start + i * 0.4, end: z.end - 20 + i * 0.4});
			if (++i < 12) { requestAnimationFrame(frame); return; }
			requestAnimationFrame(function () {
				var d = L.drawnView, v = L.view, m = window.taglensGL.marginOf(d);
				var M = new DOMMatrix(getComputedStyle(L.canvas).transform), worst = 0, k = 0;
				for (var j = 0; j < L.n; j += 97) {
					var q = M.transformPoint(new DOMPoint((L.x[j] - d.cx) * d.sx + d.px - (d.clip.x - m.x), (L.y[j] - d.cy) * d.sy + d.py - (d.clip.y - m.y)));
					var p = L.pixelOf(j);
					if (p[0] < v.clip.x || p[0] > v.clip.x + v.clip.width || p[1] < v.clip.y || p[1] > v.clip.y + v.clip.height) continue;
					worst = Math.max(worst, Math.abs(q.x - (p[0] - v.clip.x)), Math.abs(q.y - (p[1] - v.clip.y)));
					k++;
				}
				done({Draws: L.draws - d0, Moves: L.moves - m0, Worst: worst, Sampled: k});
			});
		}
		requestAnimationFrame(frame);
	})`, id, id), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gesture on %s: %+v", id, r)
	// The first frame is drawn; the view stays inside the drawn margin, so
	// every later one, the stalled ones included, moves it (a second full
	// frame at most, should a browser split one step in two).
	if r.Moves < 10 || r.Draws > 2 {
		t.Errorf("a 12-frame pan with two stalled frames: %d full frames and %d moved ones; want every frame after the first moved", r.Draws, r.Moves)
	}
	if r.Sampled < 10 || r.Worst > 1 {
		t.Errorf("the moved frame puts %d sampled points up to %.2f px from their place; want within 1 px", r.Sampled, r.Worst)
	}
	waitJS(t, ctx, "a full frame after the gesture", 10*time.Second, fmt.Sprintf(`(function () {
		var L = window.taglensGL.layers[%q];
		return L.settled() && L.drawnView === L.view && getComputedStyle(L.canvas).transform.indexOf("matrix(1, 0, 0, 1,") === 0;
	})()`, id))
}
