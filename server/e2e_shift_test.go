package server

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// shiftWatch is a script run in every new document before the page's own:
// when a map's box turns data-ready="true", it records the page-y of what
// follows the map (window.taglensShiftY: the box's legend, the context
// section, the footer). A mutation observer's callback runs as a microtask
// right after the script that set the attribute, so the positions are those
// of the map's first frame, before the browser's next idle time, when
// static/js/select.js binds the selection tools; bound says whether they
// were bound already (then the record proves nothing).
const shiftWatch = `(function () {
	window.taglensShiftY = function (box) {
		return [box.parentNode.querySelector(".legend-help"), document.querySelector('[data-testid="context-section"]'), document.querySelector("footer")]
			.map(function (e) { return e ? e.getBoundingClientRect().top + window.scrollY : -1; });
	};
	window.taglensShift = null;
	new MutationObserver(function (records, obs) {
		var box = records.map(function (r) { return r.target; }).filter(function (e) { return e.getAttribute("data-ready") === "true"; })[0];
		if (!box) return;
		obs.disconnect();
		window.taglensShift = {box: box, bound: !!document.querySelector('[data-testid="tool-lasso"]'), y: window.taglensShiftY(box)};
	}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-ready"]});
})()`

// shiftWhat names the positions that shiftWatch records.
var shiftWhat = []string{"the map's legend", "the context section", "the footer"}

// TestBrowserMapToolsNoShift opens the explorer's term map and the
// whole-space map at a desktop's and a phone's width: what follows a map
// (its legend, the context section below it, the footer) stays where it was
// at the map's first frame once the selection tools and the histograms are
// bound, so a click aimed just before lands on its target. The toolbar and
// the panel are rendered with the page (views/layout.templ MapTools,
// SelectionPanel) and select.js fills them in place.
func TestBrowserMapToolsNoShift(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: shiftWatch}); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ name, path string }{
		{"term map", "/explorer?model=" + modelID + "&term=guitar"},
		{"whole space", "/explorer?view=space&model=" + modelID},
	}
	for _, w := range []int64{1400, 390} {
		step(t, ctx, "viewport", 10*time.Second, chromedp.EmulateViewport(w, 900))
		for _, p := range pages {
			what := fmt.Sprintf("%s at %d px", p.name, w)
			step(t, ctx, what, 2*time.Minute, openMap(base+p.path))
			waitJS(t, ctx, what+": positions at the map's first frame", 2*time.Minute, `!!window.taglensShift`)
			// Bound: the tools carry their test ids and the histograms are drawn.
			waitJS(t, ctx, what+": selection tools bound", time.Minute,
				`!!document.querySelector('[data-testid="tool-lasso"]:not([disabled])') && !!document.querySelector('[data-testid="histograms"] figure')`)
			type shift struct {
				Bound       bool
				Before, Now []float64
			}
			s, err := chromedp.Run(ctx, chromedp.Evaluate[shift](`({Bound: window.taglensShift.bound, Before: window.taglensShift.y,
				Now: window.taglensShiftY(window.taglensShift.box)})`))
			if err != nil {
				t.Fatal(err)
			}
			if s.Bound {
				t.Fatalf("%s: the tools were bound before the map was ready: the first frame's positions were not seen", what)
			}
			for i, name := range shiftWhat {
				if s.Before[i] < 0 || s.Now[i] < 0 {
					t.Errorf("%s: %s is not on the page", what, name)
				} else if d := s.Now[i] - s.Before[i]; math.Abs(d) >= 1 {
					t.Errorf("%s: %s moved by %.1f px (page-y %.1f → %.1f) when the selection tools were bound", what, name, d, s.Before[i], s.Now[i])
				}
			}
		}
	}
}
