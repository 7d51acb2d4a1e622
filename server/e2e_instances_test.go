package server

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/internal/app"
)

// TestBrowserInstanceMap walks the map of every instance in headless
// Chromium: from the explorer's "Every instance" tab the map is computed,
// read as binary columns and drawn by the WebGL layer with as many points as
// the server's answer holds (and as the model's training documents have
// vocabulary tags); a lasso selects the instances inside it, which are
// listed with their documents' ids and tags from the server.
func TestBrowserInstanceMap(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "viewport", 10*time.Second, chromedp.EmulateViewport(1400, 1000))
	step(t, ctx, "explorer", time.Minute, chromedp.Navigate(base+"/explorer?model="+modelID), chromedp.WaitVisible(tid("view-all-instances")),
		chromedp.Click(tid("view-all-instances")))
	waitJS(t, ctx, "the instance page", time.Minute, `location.search.indexOf("view=instances") >= 0 && document.readyState === "complete"`)
	step(t, ctx, "compute the instance map", 3*time.Minute, computeMap())
	waitJS(t, ctx, "instance map drawn", 3*time.Minute,
		`!!document.querySelector('[data-testid="instances-map"]') && document.querySelector('[data-testid="instances-map"]').getAttribute('data-render-ms') !== null`)

	// The server's answer: binary, its header's count of instances.
	res, err := http.Get(base + "/api/models/" + modelID + "/instances")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "application/octet-stream" {
		t.Fatalf("GET instances: %d %s, want 200 application/octet-stream", res.StatusCode, ct)
	}
	hdr, in, err := decodeInstances(b)
	if err != nil {
		t.Fatal(err)
	}
	row, m, err := ts.model(context.Background(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := ts.trainingDocs(context.Background(), row, m)
	if err != nil {
		t.Fatal(err)
	}
	tags := make([][]string, len(docs))
	for i, d := range docs {
		tags[i] = d.Tags
	}
	if want := app.CountInstances(m, tags); hdr.N != want || len(in.X) != want || want < 1000 {
		t.Fatalf("the server's map holds %d instances (columns of %d), want the %d of the training documents (and more than 1000)", hdr.N, len(in.X), want)
	}
	drawn := num(t, ctx, `(function () {
		var L = window.taglensGL.layers["instances"], box = document.querySelector('[data-testid="instances-map"]');
		return L && L.shown === L.n && box.getAttribute("data-renderer") === "webgl" && L.inked() > 0 ? Number(box.getAttribute("data-points")) : -1;
	})()`)
	if drawn != float64(hdr.N) {
		t.Fatalf("the page drew %v instances (-1: no layer, not all shown or no ink), want the server's %d", drawn, hdr.N)
	}

	// On a desktop the map fills the window's width (the page's main column stops at 1280 px).
	if w := num(t, ctx, `document.getElementById("instances").getBoundingClientRect().width / window.innerWidth`); w < 0.9 {
		t.Errorf("the map is %.2f of the window's width at 1400 px, want it to fill the window", w)
	}

	// A lasso: the instances inside it selected, listed with their documents.
	waitJS(t, ctx, "selection tools", time.Minute, `!!document.querySelector('[data-testid="tool-lasso"]')`)
	step(t, ctx, "lasso mode", 10*time.Second, chromedp.Click(tid("tool-lasso")))
	g := mapGrid(t, ctx, "instances")
	path := circle(g.X+g.W/2, g.Y+g.H/2, 0.3*math.Min(g.W, g.H), 40)
	lasso(t, ctx, path)
	waitJS(t, ctx, "the lasso's instances selected", 20*time.Second,
		`Number(document.querySelector('[data-testid="instances-map"]').getAttribute("data-selected-points")) > 0`)
	sel := num(t, ctx, `Number(document.querySelector('[data-testid="instances-map"]').getAttribute("data-selected-points"))`)
	want := num(t, ctx, fmt.Sprintf(`(function () { var L = window.taglensGL.layers["instances"]; return %s(L.x, L.y, %s, "instances"); })()`, insideCount, jsPath(path)))
	if sel != want {
		t.Errorf("the lasso selected %v instances, want the %v inside it", sel, want)
	}
	waitJS(t, ctx, "the listed instances' documents", 30*time.Second,
		`Number(document.querySelector('[data-testid="instances-map"]').getAttribute("data-docs-listed")) > 0`)
	items, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="selection-list"] [data-testid="selection-item"]')).map(function (li) { return li.textContent; })`))
	if err != nil {
		t.Fatal(err)
	}
	if float64(len(items)) != math.Min(sel, 200) {
		t.Errorf("%d instances listed, want %v", len(items), math.Min(sel, 200))
	}
	byID := map[string][]string{}
	for _, d := range docs {
		byID[d.ID] = d.Tags
	}
	for _, it := range items[:min(len(items), 20)] {
		// "term · document #k document ID: tag, tag"
		_, rest, ok := strings.Cut(it, " document ")
		if _, rest2, ok2 := strings.Cut(rest, " document "); ok && ok2 {
			id, tagList, _ := strings.Cut(rest2, ": ")
			if tg, found := byID[id]; !found || tagList != strings.Join(tg, ", ") {
				t.Errorf("listed %q: document %q with tags %q, want a training document with its tags (%q)", it, id, tagList, tg)
			}
			continue
		}
		t.Errorf("listed %q: no document and tags", it)
	}
	t.Logf("%d instances drawn in %s ms after their data arrived; the lasso selected %v, listed %d", hdr.N,
		str(t, ctx, `document.querySelector('[data-testid="instances-map"]').getAttribute("data-render-ms")`), sel, len(items))
	screenshot(t, ctx, shotDir(t), "5k-instances-map")

	// At 390 px the page does not scroll sideways.
	step(t, ctx, "390 px", time.Minute, chromedp.EmulateViewport(390, 844), chromedp.Reload())
	waitJS(t, ctx, "instance map drawn at 390 px", time.Minute,
		`document.querySelector('[data-testid="instances-map"]').getAttribute('data-render-ms') !== null`)
	if over := num(t, ctx, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
		t.Errorf("at 390 px the instance page scrolls sideways by %v px", over)
	}
}
