package server

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// svgPoints checks that doc is a well-formed SVG document (an <svg> root, an
// XML parser reads it to the end) and returns how many points (elements of
// class "pt") it holds and their distinct fill colours.
func svgPoints(t *testing.T, doc string) (int, map[string]bool) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	n, fills, root := 0, map[string]bool{}, ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed: %v\n%.300s", err, doc)
		}
		if e, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = e.Name.Local
				if root != "svg" || e.Name.Space != "http://www.w3.org/2000/svg" {
					t.Fatalf("root element %s in %q", root, e.Name.Space)
				}
			}
			var class, fill string
			for _, a := range e.Attr {
				switch a.Name.Local {
				case "class":
					class = a.Value
				case "fill":
					fill = a.Value
				}
			}
			if class == "pt" {
				n++
				fills[fill] = true
			}
		}
	}
	return n, fills
}

// saveMapSVG presses the map's "Save as SVG" (the toolbox feature's own
// handler) and returns the file the page downloaded and its name.
func saveMapSVG(t *testing.T, ctx context.Context, chart string) (doc, name string) {
	t.Helper()
	type file struct{ Name, Body string }
	f, err := chromedp.Run(ctx, chromedp.Evaluate[file](fmt.Sprintf(`new Promise(function (done) {
		// The page's CSP keeps fetch from blob: URLs: the test keeps the blob
		// the page makes the download's URL of, and reads it when the link is clicked.
		var click = HTMLAnchorElement.prototype.click, objectURL = URL.createObjectURL, blobs = {};
		URL.createObjectURL = function (b) { var u = objectURL.call(URL, b); blobs[u] = b; return u; };
		HTMLAnchorElement.prototype.click = function () {
			var a = this;
			HTMLAnchorElement.prototype.click = click;
			URL.createObjectURL = objectURL;
			if (!blobs[a.href]) { done({Name: "", Body: "the link " + a.href + " is not a blob the page made"}); return; }
			blobs[a.href].text().then(function (body) { done({Name: a.download, Body: body}); });
		};
		var tool = window.taglensCharts[%q].getOption().toolbox[0].feature.mySVG;
		if (!tool || tool.show !== true) { HTMLAnchorElement.prototype.click = click; URL.createObjectURL = objectURL; done({Name: "", Body: ""}); return; }
		try { tool.onclick(); } catch (e) { HTMLAnchorElement.prototype.click = click; URL.createObjectURL = objectURL; done({Name: "", Body: String(e && e.stack || e)}); }
	})`, chart), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name == "" {
		t.Fatalf("no Save as SVG in the map's toolbox, or it failed: %s", f.Body)
	}
	return f.Body, f.Name
}

// inView counts the points of the map's data (term map: its data URL's x,
// y; whole space: likewise) inside the chart's grid at the current zoom.
func inView(t *testing.T, ctx context.Context, chart, urlAttr string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`fetch(document.querySelector('[%s]').getAttribute(%q)).then(function (r) { return r.json(); }).then(function (d) {
		var c = window.taglensCharts[%q], r = c.getModel().getComponent("grid", 0).coordinateSystem.getRect(), k = 0;
		for (var i = 0; i < d.x.length; i++) {
			var p = c.convertToPixel({gridIndex: 0}, [d.x[i], d.y[i]]);
			if (p[0] >= r.x - 0.5 && p[0] <= r.x + r.width + 0.5 && p[1] >= r.y - 0.5 && p[1] <= r.y + r.height + 0.5) k++;
		}
		return k;
	})`, urlAttr, urlAttr, chart), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBrowserMapSVG saves maps as SVG in headless Chromium and reads the
// downloaded file: a well-formed SVG document holding one element per
// visible point, in the map's colours — a small term map (canvas) whole and
// zoomed in, a whole-space map, and a 10,000-point term map drawn by the
// WebGL layer.
func TestBrowserMapSVG(t *testing.T) {
	ctx := browser(t)
	ts, corpusID, modelID := trainedServer(t)
	base := liveServer(t, ts)

	step(t, ctx, "term map", time.Minute, openMap(base+"/explorer?model="+modelID+"&term=guitar"))
	waitMapReady(t, ctx, "term=guitar")
	total := inView(t, ctx, "map", "data-map-url")
	doc, name := saveMapSVG(t, ctx, "map")
	n, fills := svgPoints(t, doc)
	t.Logf("term map: %s, %d bytes, %d points, fills %v", name, len(doc), n, fills)
	if dir := os.Getenv("TAGLENS_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(shotDir(t), "5j-term-map.svg"), []byte(doc), 0o644)
	}
	if name != "taglens-map.svg" || n != total || total < 20 || len(fills) < 2 {
		t.Errorf("term map SVG %s: %d points in %d colours, want %d (every point) in at least 2", name, n, len(fills), total)
	}
	if !strings.Contains(doc, "<title>taglens map: ") || !strings.Contains(doc, "guitar") {
		t.Errorf("the SVG's title does not name the map: %.400s", doc)
	}
	step(t, ctx, "zoom in", 10*time.Second, chromedp.Evaluate[chromedp.Void](
		`window.taglensCharts["map"].dispatchAction({type: "dataZoom", dataZoomIndex: 0, start: 0, end: 45})`))
	time.Sleep(300 * time.Millisecond)
	zoomed := inView(t, ctx, "map", "data-map-url")
	doc, _ = saveMapSVG(t, ctx, "map")
	if n, _ := svgPoints(t, doc); n != zoomed || zoomed >= total || zoomed == 0 {
		t.Errorf("zoomed term map SVG: %d points, want the %d in view (of %d)", n, zoomed, total)
	}

	step(t, ctx, "whole space", time.Minute, openMap(base+"/explorer?view=space&model="+modelID))
	waitJS(t, ctx, "whole-space map drawn", 2*time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true'`)
	total = inView(t, ctx, "space", "data-space-url")
	doc, _ = saveMapSVG(t, ctx, "space")
	n, _ = svgPoints(t, doc)
	if n != total {
		t.Errorf("whole-space SVG: %d points, want the %d terms", n, total)
	}
	if strings.Count(doc, "</text>") < 25+4 {
		t.Errorf("whole-space SVG: %d texts, want the 25 most used terms' labels and 4 axis ranges", strings.Count(doc, "</text>"))
	}

	putSyntheticMap(t, ts, modelID, corpusID)
	step(t, ctx, "10,000 points with the WebGL layer", time.Minute,
		openMap(base+"/explorer?model="+modelID+"&term="+loadTerm+"&gl=on"))
	waitMapReady(t, ctx, "gl=on")
	waitJS(t, ctx, "drawn by the layer", time.Minute, `document.querySelector('[data-testid="map"]').getAttribute('data-renderer') === 'webgl'`)
	total = inView(t, ctx, "map", "data-map-url")
	doc, _ = saveMapSVG(t, ctx, "map")
	n, fills = svgPoints(t, doc)
	t.Logf("10,000-point WebGL map: %d bytes, %d points, fills %v", len(doc), n, fills)
	if n != total || total != 10000 || len(fills) != 3 {
		t.Errorf("WebGL map SVG: %d points in %d colours, want %d in the 3 sense clusters' colours", n, len(fills), total)
	}
}
