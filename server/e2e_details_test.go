package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserExplorerDetails checks the explorer's details in Chromium. The
// whole-space map coloured by topic shows one legend (the key above the map;
// the chart's own, whose "terms" swatch had no term's colour and whose
// highlight colours were topics' colours, hidden), its status line gives
// t-SNE's perplexity and iterations, a regular expression that does not
// parse is reported as such (not as "0 matches"), and a neighbour in the
// list is a button that selects that term. On a term map a clicked instance
// is ringed, the status line gives perplexity and iterations, and a
// neighbour of the instance opens that term's map.
func TestBrowserExplorerDetails(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	str := func(expr string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return s
	}
	status := func(id string) string { return str(`document.querySelector('[data-testid="` + id + `"]').textContent`) }

	step(t, ctx, "whole space by topic", time.Minute, openMap(base+"/explorer?view=space&model="+modelID+"&color=topic&sel=guitar"), listNeighbours())
	waitJS(t, ctx, "whole-space map drawn", 2*time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true' &&
		 document.querySelectorAll('[data-testid="space-neighbours"] li').length > 0`)
	legend := str(`(function () {
		var lg = window.taglensCharts["space"].getOption().legend[0], key = document.querySelector('[data-testid="space-key"]');
		return (lg.show === false ? "" : "chart legend shown; ") + (key.hidden ? "key hidden; " : "") +
			(key.querySelector('[data-key="selected"]') ? "" : "the key does not name the selected term; ");
	})()`)
	if legend != "" {
		t.Errorf("coloured by topic, want one legend, the key: %s", legend)
	}
	if st := status("space-status"); !strings.Contains(st, "perplexity") || !strings.Contains(st, "iterations") {
		t.Errorf("whole-space status %q names no perplexity and iterations", st)
	}
	// A neighbour selects its term.
	next := str(`document.querySelector('[data-testid="space-neighbours"] [data-testid="neighbour-pick"]') ? document.querySelector('[data-testid="space-neighbours"] [data-testid="neighbour-pick"]').textContent : ""`)
	if next == "" {
		t.Fatal("the whole-space neighbours are not buttons")
	}
	step(t, ctx, "click a neighbour", 10*time.Second, chromedp.Click(`[data-testid="space-neighbours"] [data-testid="neighbour-pick"]`))
	waitJS(t, ctx, "the neighbour selected", 20*time.Second, `document.querySelector('[data-testid="space-selected"] b').textContent === `+jsString(next)+` &&
		new URL(location.href).searchParams.get("sel") === `+jsString(next))
	// A bad regular expression.
	step(t, ctx, "bad regular expression", 10*time.Second, chromedp.SendKeys(tid("space-search"), "/gui[/"))
	waitJS(t, ctx, "the search's error reported", 10*time.Second, `document.querySelector('[data-testid="space-status"]').getAttribute("data-matches") !== ""`)
	if st := status("space-status"); !strings.Contains(st, "not a valid regular expression") || strings.Contains(st, "0 matches") {
		t.Errorf("searching /gui[/: status %q, want the expression's error", st)
	}

	// A term map: the clicked instance is ringed.
	step(t, ctx, "term map", time.Minute, openMap(base+"/explorer?model="+modelID+"&term=guitar"))
	waitMapReady(t, ctx, "term=guitar")
	if st := status("map-status"); !strings.Contains(st, "perplexity") || !strings.Contains(st, "iterations") {
		t.Errorf("term map status %q names no perplexity and iterations", st)
	}
	time.Sleep(1500 * time.Millisecond) // the scatter's entry animation
	type xy struct{ X, Y float64 }
	pt, err := chromedp.Run(ctx, chromedp.Evaluate[xy](`(function () {
		var el = document.getElementById("map");
		el.scrollIntoView({block: "center"});
		var c = window.taglensCharts["map"], d = c.getOption().series[0].data[0];
		var p = c.convertToPixel({seriesIndex: 0}, [d[0], d[1]]), r = el.getBoundingClientRect();
		return {X: r.left + p[0], Y: r.top + p[1]};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.MouseClickXY(pt.X, pt.Y)); err != nil {
		t.Fatal(err)
	}
	// The ring is on the point clicked (the nearest point under the pointer).
	waitJS(t, ctx, "the clicked instance ringed", 20*time.Second, fmt.Sprintf(`(function () {
		var c = window.taglensCharts["map"], o = c.getOption(), el = document.getElementById("map");
		var ring = o.series.filter(function (s) { return s.id === "selected-point"; })[0];
		if (!ring || ring.data.length !== 1) return false;
		var p = c.convertToPixel({gridIndex: 0}, [ring.data[0][0], ring.data[0][1]]), r = el.getBoundingClientRect();
		return Math.hypot(r.left + p[0] - %f, r.top + p[1] - %f) < 12 &&
			document.getElementById("selected").textContent.indexOf("guitar in document") === 0;
	})()`, pt.X, pt.Y))
	waitJS(t, ctx, "the instance's neighbours listed", 30*time.Second, `document.querySelectorAll('[data-testid="neighbours"] [data-testid="neighbour-pick"]').length > 0`)
	// The cosine distance lists the same point's neighbours again, with other distances.
	listed := `Array.from(document.querySelectorAll('[data-testid="neighbours"] li')).map(function (li) { return li.textContent; }).join("|")`
	euc := str(listed)
	str(`(function () { var m = document.querySelector('[data-testid="neighbour-metric"]');
		m.value = "cosine"; m.dispatchEvent(new Event("change")); return ""; })()`)
	waitJS(t, ctx, "the instance's cosine neighbours listed", 30*time.Second, `(function () { var l = `+listed+`;
		return document.querySelectorAll('[data-testid="neighbours"] [data-testid="neighbour-pick"]').length > 0 && l !== `+jsString(euc)+`; })()`)
	next = str(`document.querySelector('[data-testid="neighbours"] [data-testid="neighbour-pick"]').textContent`)
	step(t, ctx, "click an instance's neighbour", 10*time.Second, chromedp.Click(`[data-testid="neighbours"] [data-testid="neighbour-pick"]`))
	waitJS(t, ctx, "the neighbour's map opened", 30*time.Second, `new URL(location.href).searchParams.get("term") === `+jsString(next))
	screenshot(t, ctx, shotDir(t), "5h-neighbour-map")
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`", "$", "\\$").Replace(s) + "`"
}
