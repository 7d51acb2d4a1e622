package server

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// svgLegendNames returns the names of the legend entries of an SVG document
// (the texts of the group of class "legend") and how many symbols of class
// "key" it holds.
func svgLegendNames(t *testing.T, doc string) (names []string, keys int) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	depth, inLegend := 0, -1
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			for _, a := range e.Attr {
				if a.Name.Local == "class" && a.Value == "legend" {
					inLegend = depth
				}
				if a.Name.Local == "class" && a.Value == "key" && inLegend > 0 {
					keys++
				}
			}
			inText = inLegend > 0 && e.Name.Local == "text"
		case xml.CharData:
			if inText {
				names = append(names, string(e))
			}
		case xml.EndElement:
			if depth == inLegend {
				inLegend = -1
			}
			depth--
			inText = false
		}
	}
	return names, keys
}

// chartLegend returns the names the map's legend shows (selected).
func chartLegend(t *testing.T, ctx context.Context, chart string) []string {
	t.Helper()
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`(function () {
		var c = window.taglensCharts[%q], lg = c.getModel().getComponent("legend", 0), out = [];
		lg.getData().forEach(function (d) { var n = d.get("name"); if (lg.isSelected(n) && c.getModel().getSeriesByName(n).length) out.push(n); });
		return out;
	})()`, chart)))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// pngSlider renders the map's PNG as its toolbox saves it (ECharts' own
// saveAsImage with the option's excludeComponents, or the WebGL layer's
// composite) and counts the non-white pixels where the zoom slider is on
// the screen; it checks that the slider is still on the screen afterwards.
func pngSlider(t *testing.T, ctx context.Context, chart string) (dark, total int) {
	t.Helper()
	type res struct {
		Dark, Total int
		Shown       bool
		Err         string
	}
	r, err := chromedp.Run(ctx, chromedp.Evaluate[res](fmt.Sprintf(`new Promise(function (done) {
		var c = window.taglensCharts[%q], f = c.getOption().toolbox[0].feature;
		var dz = c.getModel().queryComponents({mainType: "dataZoom"}).filter(function (m) { return m.type === "dataZoom.slider"; })[0];
		if (!dz) { done({Err: "no zoom slider"}); return; }
		var g = c.getViewOfComponentModel(dz).group, rect = g.getBoundingRect().clone();
		if (g.transform) rect.applyTransform(g.transform);
		var url;
		if (f.myGLSave && f.myGLSave.show) url = window.taglensGL.composite(c, window.taglensGL.layers[%q]).toDataURL("image/png");
		else url = c.getConnectedDataURL({type: "png", pixelRatio: f.saveAsImage.pixelRatio, backgroundColor: "#fff", excludeComponents: f.saveAsImage.excludeComponents});
		var img = new Image();
		img.onerror = function () { done({Err: "the image does not load"}); };
		img.onload = function () {
			var cv = document.createElement("canvas"), x = cv.getContext("2d"), k = img.width / c.getWidth();
			cv.width = img.width; cv.height = img.height;
			x.fillStyle = "#fff"; x.fillRect(0, 0, cv.width, cv.height); x.drawImage(img, 0, 0);
			var d = x.getImageData(Math.floor(rect.x * k), Math.floor(rect.y * k), Math.ceil(rect.width * k), Math.ceil(rect.height * k)).data, n = 0;
			for (var i = 0; i < d.length; i += 4) if (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235) n++;
			done({Dark: n, Total: d.length / 4, Shown: !g.ignore});
		};
		img.src = url;
	})`, chart, chart), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	if !r.Shown {
		t.Error("the zoom slider stays hidden on the screen after the PNG")
	}
	return r.Dark, r.Total
}

// TestBrowserMapExports: the SVG of a map has a legend naming the legend's
// shown entries, each with its symbol (a term map drawn on the canvas and
// one drawn by the WebGL layer), and its PNG leaves out the zoom slider.
func TestBrowserMapExports(t *testing.T) {
	ctx := browser(t)
	ts, corpusID, modelID := trainedServer(t)
	base := liveServer(t, ts)

	step(t, ctx, "term map", time.Minute, openMap(base+"/explorer?model="+modelID+"&term=guitar"))
	waitMapReady(t, ctx, "term=guitar")
	want := chartLegend(t, ctx, "map")
	doc, _ := saveMapSVG(t, ctx, "map")
	names, keys := svgLegendNames(t, doc)
	if len(want) < 2 || !slices.Equal(names, want) || keys != len(want) {
		t.Errorf("term map SVG legend: %q with %d symbols, want the chart's %q", names, keys, want)
	}
	if dark, total := pngSlider(t, ctx, "map"); total == 0 || dark > total/100 {
		t.Errorf("term map PNG: %d of the %d pixels where the zoom slider is are drawn, want it left out", dark, total)
	}
	// A legend entry switched off is left out of the SVG's legend.
	step(t, ctx, "hide a group", 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`window.taglensCharts["map"].dispatchAction({type: "legendUnSelect", name: %q})`, want[0])))
	doc, _ = saveMapSVG(t, ctx, "map")
	if names, _ := svgLegendNames(t, doc); !slices.Equal(names, want[1:]) {
		t.Errorf("with %q hidden, the SVG legend is %q, want %q", want[0], names, want[1:])
	}

	putSyntheticMap(t, ts, modelID, corpusID)
	step(t, ctx, "WebGL map", time.Minute, openMap(base+"/explorer?model="+modelID+"&term="+loadTerm+"&gl=on"))
	waitMapReady(t, ctx, "gl=on")
	waitJS(t, ctx, "drawn by the layer", time.Minute, `document.querySelector('[data-testid="map"]').getAttribute('data-renderer') === 'webgl'`)
	want = chartLegend(t, ctx, "map")
	doc, _ = saveMapSVG(t, ctx, "map")
	if names, keys := svgLegendNames(t, doc); len(want) < 3 || !slices.Equal(names, want) || keys != len(want) {
		t.Errorf("WebGL map SVG legend: %q with %d symbols, want the chart's %q", names, keys, want)
	}
	if dark, total := pngSlider(t, ctx, "map"); total == 0 || dark > total/100 {
		t.Errorf("WebGL map PNG: %d of the %d pixels where the zoom slider is are drawn, want it left out", dark, total)
	}
}
