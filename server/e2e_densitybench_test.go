package server

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserDensityBench is the density layer's and region labels'
// benchmark, run when TAGLENS_RENDER_BENCH is set (it reports, it asserts
// nothing about speed): in headless Chromium, static/js/density.js analyses
// synthetic maps of 10^4, 10^5 and 10^6 points (40 Gaussian blobs, each
// point with 5 tags, 3 of them its blob's), and the time of the analysis
// (three density estimates, the regions, their tf-idf labels and the
// contours) is logged, the best of three runs.
func TestBrowserDensityBench(t *testing.T) {
	if os.Getenv("TAGLENS_RENDER_BENCH") == "" {
		t.Skip("a benchmark: set TAGLENS_RENDER_BENCH=1 to run it")
	}
	ctx := browser(t)
	ts := newTestServer(t, Config{})
	base := liveServer(t, ts)
	step(t, ctx, "a page", time.Minute, chromedp.Navigate(base+"/explorer"))
	waitJS(t, ctx, "density.js loaded", 30*time.Second, `!!window.taglensDensity`)
	type result struct {
		MS     float64
		Labels int
	}
	for _, n := range []int{10000, 100000, 1000000} {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[result](fmt.Sprintf(`(function (n) {
			var s = 1, rnd = function () { s = (s * 16807) %% 2147483647; return s / 2147483647; };
			var gauss = function () { return Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd()); };
			var cx = [], cy = [];
			for (var b = 0; b < 40; b++) { cx.push(rnd() * 100); cy.push(rnd() * 100); }
			var x = new Float64Array(n), y = new Float64Array(n), tags = new Array(n);
			for (var i = 0; i < n; i++) {
				var k = i %% 40;
				x[i] = cx[k] + 3 * gauss(); y[i] = cy[k] + 3 * gauss();
				tags[i] = ["b" + k + "a", "b" + k + "b", "b" + k + "c", "t" + Math.floor(rnd() * 500), "t" + Math.floor(rnd() * 500)];
			}
			var best = Infinity, a;
			for (var r = 0; r < 3; r++) {
				a = window.taglensDensity.analyse({x: x, y: y, tags: function (i) { return tags[i]; }});
				best = Math.min(best, a.ms);
			}
			return {MS: best, Labels: a.labels.length};
		})(%d)`, n)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d points: density, regions, labels and contours in %.0f ms (%d labelled regions over three levels; headless Chromium, load average %s)",
			n, r.MS, r.Labels, loadAverage())
	}
}
