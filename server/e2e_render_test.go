package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/taglens/taglens/internal/app"
)

// TestBrowserMapRender100k is the explorer's rendering benchmark, run when
// TAGLENS_RENDER_BENCH is set (it reports, it asserts nothing about speed):
// a cached synthetic term map of 100,000 points, then a cached synthetic
// whole-space map of 100,000 terms, are opened in headless Chromium, each on
// canvas and with WebGL; it logs for each the time from the map's data to the
// drawn chart and the frame rates of a pan and of a zoom (60 zoom-window
// changes each, one per animation frame; measureMap).
func TestBrowserMapRender100k(t *testing.T) {
	if os.Getenv("TAGLENS_RENDER_BENCH") == "" {
		t.Skip("a benchmark: set TAGLENS_RENDER_BENCH=1 to run it")
	}
	ctx := browser(t)
	ts, corpusID, modelID := trainedServer(t)
	const n = 100000
	b, err := json.Marshal(syntheticMap(n, loadTerm, 5))
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.store.PutMap(context.Background(), modelID, mapKey("siamese-ce", loadTerm, []string{corpusID}), b); err != nil {
		t.Fatal(err)
	}
	ts.maps.dropModel(modelID)
	putSyntheticSpace(t, ts, modelID, n)
	base := liveServer(t, ts)
	// Each map is drawn twice, on canvas (?gl=off) and with the WebGL layer
	// (?gl=on), one after the other, so that both see about the same load on
	// the machine.
	for _, m := range []struct{ what, url, box, chart string }{
		{"term map", "/explorer?model=" + modelID + "&term=" + loadTerm, "map", "map"},
		{"whole-space map", "/explorer?view=space&model=" + modelID + "&seed=" + fmt.Sprint(benchSpaceSeed), "space-map", "space"},
	} {
		for _, gl := range []string{"&gl=off", "&gl=on"} {
			ms, how, pan, zoom := measureMap(t, ctx, base+m.url+gl, m.box, m.chart)
			// The density and region labels (select.js, after the first frame).
			waitJS(t, ctx, "density analysed", time.Minute, `document.querySelector('[data-testid="`+m.box+`"]').hasAttribute("data-density-ms")`)
			dms, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="`+m.box+`"]').getAttribute("data-density-ms")`))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s of %d points, drawn with %s: first render %s ms after the data arrived; pan %.1f frames/s%s; zoom %.1f frames/s%s; density and region labels %s ms (headless Chromium, software rendering, load average %s)",
				m.what, n, how, ms, pan.FPS, pan.layerNote(), zoom.FPS, zoom.layerNote(), dms, loadAverage())
		}
	}
}

// panResult is what measureMap measures of a gesture: the frame rate and, with
// the WebGL layer, how many frames it drew in full and moved (the last full
// frame transformed), and the ms from the pan's last frame until the layer
// showed a full frame of the final view again.
type panResult struct {
	FPS          float64
	GL           bool
	Draws, Moves int
	SettleMS     float64
}

func (p panResult) layerNote() string {
	if !p.GL {
		return ""
	}
	return fmt.Sprintf(" (the layer drew %d frames in full and moved the last one %d times; full frame again %.0f ms after the gesture's last frame)", p.Draws, p.Moves, p.SettleMS)
}

// measureMap opens a map page and returns its first render time in ms (the
// box's data-render-ms), its renderer ("canvas" or "WebGL", the box's
// data-renderer) and what a pan and a zoom measured: 60 zoom-window changes
// each, one per animation frame, timed with performance.now() from the first
// frame to the frame after the last. The pan moves a window of 40% of x by
// 30% of x; the zoom narrows x from 10-90% to 30-70% (twice the scale).
func measureMap(t *testing.T, ctx context.Context, url, box, chart string) (ms, how string, pan, zoom panResult) {
	t.Helper()
	sel := fmt.Sprintf(`document.querySelector('[data-testid=%q]')`, box)
	step(t, ctx, "open "+url, 2*time.Minute, chromedp.Navigate(url), chromedp.WaitVisible(tid(box)))
	waitJS(t, ctx, "map drawn", 3*time.Minute, sel+`.getAttribute('data-render-ms') !== null`)
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[string](sel+`.getAttribute('data-render-ms')`))
	if err != nil {
		t.Fatal(err)
	}
	how, _ = chromedp.Run(ctx, chromedp.Evaluate[string](sel+`.getAttribute('data-renderer') || 'canvas'`))
	pan = gesture(t, ctx, chart, panWindow)
	step(t, ctx, "zoom out", 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`window.taglensCharts[%q].dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: 10, end: 90})`, chart)))
	zoom = gesture(t, ctx, chart, zoomWindow)
	return ms, how, pan, zoom
}

// benchSpaceSeed is the t-SNE seed of the synthetic whole-space map's cache
// key: no other test asks for a map with it, so the shared test store's real
// whole-space map is left alone.
const benchSpaceSeed = 777

// putSyntheticSpace caches a synthetic whole-space map of n terms under the
// t-SNE settings with seed benchSpaceSeed: the model's own vocabulary first
// (so that their neighbours can be listed), then made-up terms, in six
// clusters, with Zipf-distributed document counts.
func putSyntheticSpace(t *testing.T, ts *testServer, modelID string, n int) {
	t.Helper()
	row, m, err := ts.model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 7))
	zipf := rand.NewZipf(rng, 1.1, 1, 5000)
	sm := &spaceMap{Variant: "siamese-ce", Projection: projTSNE, KL: 1.5}
	v := m.Vocabulary()
	for i := 0; i < n; i++ {
		term := fmt.Sprintf("term-%06d", i)
		if i < v.Len() {
			term = v.Term(i)
		}
		a := float64(rng.IntN(6)) * math.Pi / 3
		sm.Terms = append(sm.Terms, term)
		sm.Docs = append(sm.Docs, 1+int(zipf.Uint64()))
		sm.X = append(sm.X, app.Round4(30*math.Cos(a)+4*rng.NormFloat64()))
		sm.Y = append(sm.Y, app.Round4(30*math.Sin(a)+4*rng.NormFloat64()))
	}
	b, err := json.Marshal(sm)
	if err != nil {
		t.Fatal(err)
	}
	ts.maps.dropModel(modelID)
	key := spaceKey("siamese-ce", projTSNE, row.CorpusID, tsneSettings{Iterations: 1000, Seed: benchSpaceSeed})
	if err := ts.store.PutMap(context.Background(), modelID, key, b); err != nil {
		t.Fatal(err)
	}
}

// The windows of measureMap's gestures: a pan moves a window of 40% of x by
// 30% of x; a zoom narrows x from 10-90% to 30-70%.
const (
	panWindow  = `function (i) { return [10 + i * 0.5, 50 + i * 0.5]; }`
	zoomWindow = `function (i) { return [10 + i / 3, 90 - i / 3]; }`
)

// gesture changes the x zoom window of chart every animation frame, 60
// times (window(i): the frame's [start, end] in percent), and measures it.
func gesture(t *testing.T, ctx context.Context, chart, window string) panResult {
	t.Helper()
	// A pause first, so that each gesture starts as a new one.
	time.Sleep(500 * time.Millisecond)
	r, err := chromedp.Run(ctx, chromedp.Evaluate[panResult](fmt.Sprintf(`new Promise(function (done) {
		var c = window.taglensCharts[%q], L = window.taglensGL && window.taglensGL.layers[%q], i = 0, t0 = performance.now();
		var d0 = L ? L.draws : 0, m0 = L ? L.moves : 0;
		function frame() {
			var w = (%s)(i);
			c.dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: w[0], end: w[1]});
			if (++i < 60) { requestAnimationFrame(frame); return; }
			requestAnimationFrame(function () {
				var t1 = performance.now(), r = {FPS: 60 * 1000 / (t1 - t0), GL: !!L};
				if (!L) { done(r); return; }
				r.Draws = L.draws - d0; r.Moves = L.moves - m0;
				(function settle() {
					if (L.settled()) { L.finish(); r.SettleMS = performance.now() - t1; done(r); return; }
					setTimeout(settle, 5);
				})();
			});
		}
		requestAnimationFrame(frame);
	})`, chart, chart, window), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
