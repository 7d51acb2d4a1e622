package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSpaceMap walks the whole-space journey in headless Chromium: open
// the map of every term, search (the matches light up without a reload),
// click a term (its k nearest terms are listed and light up in the map), and
// find the search, the selection and k in the page's URL.
func TestBrowserSpaceMap(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "whole-space explorer", time.Minute,
		openMap(base+"/explorer?model="+modelID),
		chromedp.WaitVisible(tid("view-space")),
		chromedp.Click(tid("view-space")),
	)
	// The tab is a link: its page reads the map, and offers to compute it.
	waitJS(t, ctx, "the whole-space page", time.Minute, `location.search.indexOf("view=space") >= 0 && document.readyState === "complete"`)
	step(t, ctx, "compute the whole-space map", 2*time.Minute, computeMap())
	waitJS(t, ctx, "whole-space map drawn", 2*time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true'`)
	step(t, ctx, "search", time.Minute,
		chromedp.SendKeys(tid("space-search"), "gui"),
	)
	waitJS(t, ctx, "matches lit up", 30*time.Second,
		`Number(document.querySelector('[data-testid="space-status"]').getAttribute('data-matches')) > 0 &&
		 window.taglensCharts["space"].getOption().series[1].data.length > 0`)
	// Click the first match: "matches" is series 1.
	type xy struct{ X, Y float64 }
	time.Sleep(1500 * time.Millisecond) // the scatter's entry animation
	pt, err := chromedp.Run(ctx, chromedp.Evaluate[xy](`(function () {
		var el = document.getElementById("space");
		el.scrollIntoView({block: "center"});
		var c = window.taglensCharts["space"];
		var d = c.getOption().series[1].data[0];
		var p = c.convertToPixel({seriesIndex: 1}, [d[0], d[1]]);
		var r = el.getBoundingClientRect();
		return {X: r.left + p[0], Y: r.top + p[1]};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.MouseClickXY(pt.X, pt.Y)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "neighbours listed and lit up", 30*time.Second,
		`document.querySelectorAll('[data-testid="space-neighbours"] li').length === 10 &&
		 window.taglensCharts["space"].getOption().series[2].data.length === 10 &&
		 window.taglensCharts["space"].getOption().series[3].data.length === 1`)
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"view=space", "q=gui", "sel=", "k=10"} {
		if !strings.Contains(href, want) {
			t.Errorf("the URL %s does not keep %q", href, want)
		}
	}
	screenshot(t, ctx, shotDir(t), "5c-space-map")
	// Isolate the matches and the selection, then colour the rest by frequency.
	// Centred first: scrolled only "into view" it can sit under the sticky header.
	step(t, ctx, "isolate", 10*time.Second,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="space-isolate"]').scrollIntoView({block: "center"})`),
		chromedp.Click(tid("space-isolate")))
	waitJS(t, ctx, "only the lit-up terms drawn", 10*time.Second,
		`window.taglensCharts["space"].getOption().series[0].data.length === 0 && location.search.indexOf("isolate=1") >= 0`)
	step(t, ctx, "colour by frequency", 10*time.Second, chromedp.Click(tid("space-isolate")),
		chromedp.SetValue(tid("space-color"), "docs"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="space-color"]').dispatchEvent(new Event("change"))`))
	waitJS(t, ctx, "coloured by frequency", 10*time.Second,
		`window.taglensCharts["space"].getOption().visualMap.length === 1 && window.taglensCharts["space"].getOption().series[0].data.length > 0 && location.search.indexOf("color=docs") >= 0 &&
		 !document.querySelector('[data-testid="space-key"]').hidden && document.querySelector('[data-testid="space-key"] .key-ramp') !== null`)
	href, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	// Zoom in: the URL keeps the ranges.
	step(t, ctx, "zoom", 10*time.Second, chromedp.Evaluate[chromedp.Void](
		`window.taglensCharts["space"].dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: 20, end: 60})`))
	waitJS(t, ctx, "zoom in the URL", 10*time.Second, `location.search.indexOf("zx=20%2C60") >= 0 || location.search.indexOf("zx=20,60") >= 0`)
	href, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	// The shared URL opens the same view: the selection, its neighbours, the zoom.
	step(t, ctx, "reopen the shared view", time.Minute, chromedp.Navigate(href))
	waitJS(t, ctx, "shared view restored", time.Minute,
		fmt.Sprintf(`document.querySelector('[data-testid="space-search"]').value === "gui" &&
		 document.querySelectorAll('[data-testid="space-neighbours"] li').length === %d &&
		 window.taglensCharts["space"].getOption().dataZoom[0].start === 20`, 10))
}
