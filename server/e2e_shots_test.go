package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserScreenshots photographs every page of a running taglens (the
// base URL in TAGLENS_SHOTS_BASE, e.g. `taglens serve` on its demo corpus)
// at 1400 and 390 CSS px wide into TAGLENS_SCREENSHOTS (or a temporary
// folder), and logs for each page what a reviewer looks for first: a page
// wider than the screen, and controls that overlap. It is a tool for looking
// at the pages, run by hand; it fails only when a page does not load.
func TestBrowserScreenshots(t *testing.T) {
	base := strings.TrimRight(os.Getenv("TAGLENS_SHOTS_BASE"), "/")
	if base == "" {
		t.Skip("a tool: set TAGLENS_SHOTS_BASE to a running taglens's URL")
	}
	var models []struct{ ID, State string }
	var corpora []struct{ ID string }
	var evals []struct{ ID string }
	getJSON(t, base+"/api/models", &models)
	getJSON(t, base+"/api/corpora", &corpora)
	getJSON(t, base+"/api/evaluations", &evals)
	model := ""
	for _, m := range models {
		if m.State == "ready" {
			model = m.ID
			break
		}
	}
	if model == "" || len(corpora) == 0 {
		t.Fatalf("no ready model (%d models) or no corpus (%d)", len(models), len(corpora))
	}
	pages := []struct{ name, path, wait string }{
		{"home", "/", "home"},
		{"corpora", "/corpora", "corpus-list"},
		{"corpus", "/corpora/" + corpora[0].ID, "top-tags"},
		{"train", "/train", "train-form"},
		{"models", "/models", "model-list"},
		{"model", "/models/" + model, "kv-params"},
		{"explorer-term", "/explorer?model=" + model, "map"},
		{"explorer-term-topic", "/explorer?model=" + model + "&color=topic", "map"},
		{"explorer-space", "/explorer?view=space&model=" + model, "space-map"},
		{"explorer-space-topic", "/explorer?view=space&model=" + model + "&color=topic", "space-map"},
		{"explorer-space-docs", "/explorer?view=space&model=" + model + "&color=docs", "space-map"},
		{"priming", "/priming?model=" + model + "&tags=guitar,folk", "prime-result"},
		{"compare", "/compare", "eval-list"},
	}
	if len(evals) > 0 {
		pages = append(pages, struct{ name, path, wait string }{"evaluation", "/compare/" + evals[0].ID, "score-table"})
	}
	ctx := browser(t)
	// The context map (Figure 7) of the first document with an OOV tag, coloured by OOV.
	step(t, ctx, "explorer", time.Minute, chromedp.Navigate(base+"/explorer?model="+model), chromedp.WaitVisible(tid("context-section")))
	href, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="context-docs"] a') || {}).getAttribute ? document.querySelector('[data-testid="context-docs"] a').getAttribute("href") : ""`))
	if href != "" {
		pages = append(pages, struct{ name, path, wait string }{"explorer-context-oov", href + "&color=oov", "map"})
	}
	dir := shotDir(t)
	t.Logf("screenshots in %s", dir)
	for _, w := range []int{1400, 390} {
		step(t, ctx, "viewport", 10*time.Second, chromedp.EmulateViewport(int64(w), 900))
		for _, p := range pages {
			step(t, ctx, p.name, time.Minute, openMap(base+p.path), chromedp.WaitVisible(tid(p.wait)))
			// Maps: wait for the drawing (or the message that replaced it).
			waitJS(t, ctx, p.name+" settled", 2*time.Minute, `(function () {
				var m = document.querySelector('[data-testid="map"], [data-testid="space-map"]');
				return !m || m.getAttribute('data-ready') === 'true' || /alert/.test((document.querySelector('.map-status') || {}).className || '');
			})()`)
			time.Sleep(800 * time.Millisecond) // entry animations
			if w < 600 {
				found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(narrowJS, w)))
				t.Logf("%d-%s: hidden or crowded on a phone: %q %v", w, p.name, found, err)
			}
			shoot(t, ctx, dir, fmt.Sprintf("%d-%s", w, p.name), w)
		}
	}
}

// layoutReport is what layoutJS finds on a page: its width, the elements
// reaching beyond the screen's edge (outside scrolling boxes) and the pairs of
// visible controls that overlap.
type layoutReport struct {
	Width    int
	Wide     string
	Overlaps []string
}

// layoutJS measures a page for layoutReport; %d: the screen's width.
const layoutJS = `(function () {
	var w = %d, out = {Width: document.documentElement.scrollWidth, Wide: "", Overlaps: []};
	var name = function (e) { return e.tagName.toLowerCase() + (e.dataset.testid ? "[" + e.dataset.testid + "]" : e.name ? "[name=" + e.name + "]" : "") + (e.textContent ? " '" + e.textContent.trim().slice(0, 24) + "'" : ""); };
	var scrolls = function (e) {
		for (var p = e.parentElement; p; p = p.parentElement) if (/auto|scroll|hidden/.test(getComputedStyle(p).overflowX)) return true;
		return false;
	};
	out.Wide = Array.from(document.querySelectorAll("body *")).filter(function (e) {
		var r = e.getBoundingClientRect(); return r.width > 0 && r.right > w + 0.5 && !scrolls(e); }).slice(0, 6).map(name).join(", ");
	// seen is the part of e's box not clipped by a scrolling or clipping
	// ancestor: a control scrolled out of its box (the map's histograms on a
	// phone) is not in the way of what is outside the box.
	var seen = function (e) {
		var r = e.getBoundingClientRect(), v = {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
		for (var p = e.parentElement; p; p = p.parentElement) {
			var st = getComputedStyle(p);
			if (!/auto|scroll|hidden|clip/.test(st.overflowX + " " + st.overflowY)) continue;
			var c = p.getBoundingClientRect();
			v = {left: Math.max(v.left, c.left), top: Math.max(v.top, c.top), right: Math.min(v.right, c.right), bottom: Math.min(v.bottom, c.bottom)};
		}
		return v;
	};
	var cs = Array.from(document.querySelectorAll("input, select, button, a, label, legend, h1, h2, h3")).filter(function (e) {
		var r = seen(e); return r.right - r.left > 0 && r.bottom - r.top > 0 && getComputedStyle(e).visibility !== "hidden"; });
	for (var i = 0; i < cs.length; i++) for (var j = i + 1; j < cs.length; j++) {
		var a = cs[i], b = cs[j];
		if (a.contains(b) || b.contains(a)) continue;
		var p = seen(a), q = seen(b);
		var ox = Math.min(p.right, q.right) - Math.max(p.left, q.left), oy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
		if (ox > 2 && oy > 2) out.Overlaps.push(name(a) + " × " + name(b));
	}
	out.Overlaps = out.Overlaps.slice(0, 8);
	return out;
})()`

// layout measures the open page at the screen's width.
func layout(t *testing.T, ctx context.Context, width int) layoutReport {
	t.Helper()
	r, err := chromedp.Run(ctx, chromedp.Evaluate[layoutReport](fmt.Sprintf(layoutJS, width)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// shoot saves a full-page screenshot and logs the page's width against the
// screen's and the pairs of visible controls that overlap.
func shoot(t *testing.T, ctx context.Context, dir, name string, width int) {
	t.Helper()
	r := layout(t, ctx, width)
	t.Logf("%s: page %d px wide (screen %d)%s; overlapping controls: %v", name, r.Width, width, map[bool]string{true: "; beyond the edge: " + r.Wide, false: ""}[r.Wide != ""], r.Overlaps)
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserControlsApart opens the pages with forms at 1400 and 390 CSS px
// wide: no two visible controls (inputs, selects, buttons, links, labels,
// headings; each the part of it its scrolling boxes show) may overlap, and
// nothing may reach beyond the screen's edge outside a scrolling box.
func TestBrowserControlsApart(t *testing.T) {
	ctx := browser(t)
	ts, corpusID, modelID := trainedServer(t)
	base := liveServer(t, ts)
	pages := []struct{ path, wait string }{
		{"/corpora", "upload-form"},
		{"/corpora/" + corpusID, "top-tags"},
		{"/train", "train-form"},
		{"/explorer?model=" + modelID + "&term=guitar", "map"},
		{"/explorer?view=space&model=" + modelID + "&color=topic", "space-map"},
		{"/priming?model=" + modelID + "&tags=guitar,folk", "prime-result"},
	}
	for _, w := range []int{1400, 390} {
		step(t, ctx, "viewport", 10*time.Second, chromedp.EmulateViewport(int64(w), 900))
		for _, p := range pages {
			step(t, ctx, p.path, time.Minute, openMap(base+p.path), chromedp.WaitVisible(tid(p.wait)))
			if r := layout(t, ctx, w); len(r.Overlaps) > 0 || r.Wide != "" {
				t.Errorf("%s at %d px: overlapping controls %v; beyond the edge: %q", p.path, w, r.Overlaps, r.Wide)
			}
		}
	}
}

// getJSON decodes the JSON answer of a GET.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
