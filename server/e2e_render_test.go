package server

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserMapRender100k is the explorer's rendering benchmark, run when
// TAGLENS_RENDER_BENCH is set (it reports, it asserts nothing about speed): a
// cached synthetic map of 100,000 points is opened in headless Chromium; it
// logs the time from the map's data to the drawn chart and the frame rate of
// a pan (60 zoom-window moves, one per animation frame).
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
	base := liveServer(t, ts)
	step(t, ctx, "open the map", 2*time.Minute,
		chromedp.Navigate(base+"/explorer?model="+modelID+"&term="+loadTerm),
		chromedp.WaitVisible(tid("map")))
	waitJS(t, ctx, "map drawn", 3*time.Minute, `document.querySelector('[data-testid="map"]').getAttribute('data-render-ms') !== null`)
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="map"]').getAttribute('data-render-ms')`))
	if err != nil {
		t.Fatal(err)
	}
	points, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("map-status").getAttribute("data-points")`))
	fps, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(function (done) {
		var c = window.taglensCharts["map"], i = 0, t0 = performance.now();
		function frame() {
			c.dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: 10 + i * 0.5, end: 50 + i * 0.5});
			if (++i < 60) { requestAnimationFrame(frame); return; }
			requestAnimationFrame(function () { done(60 * 1000 / (performance.now() - t0)); });
		}
		requestAnimationFrame(frame);
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("map of %s points: first render %s ms after the data arrived; pan %.1f frames/s (headless Chromium, software rendering, load average %s)", points, ms, fps, loadAverage())
}
