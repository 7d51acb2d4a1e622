package server

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// pickColour chooses value in the select sel and submits its form, once the
// page's map has settled, by a click on the submit button itself
// (clickElement): the context form lies below the map, and the click then
// does not depend on where the page lays it out.
func pickColour(t *testing.T, ctx context.Context, sel, value, submit string) {
	t.Helper()
	waitMapSettled(t, ctx)
	step(t, ctx, "colour by "+value, time.Minute,
		chromedp.WaitVisible(tid(sel)),
		chromedp.SetValue(tid(sel), value),
		clickElement(tid(submit)))
}

// waitMapReady waits for the term map (box "map") to be drawn after a
// navigation, with the URL holding want.
func waitMapReady(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	waitJS(t, ctx, "map drawn with "+want, 2*time.Minute, fmt.Sprintf(`location.search.indexOf(%q) >= 0 &&
		!!document.querySelector('[data-testid="map"]') && document.querySelector('[data-testid="map"]').getAttribute('data-ready') === 'true'`, want))
}

// topicSeriesCheck is a script that fetches the map's own data and tells
// whether every point of the term map is in the series of its document's
// LDA topic, drawn in that topic's colour ("" when so, else what differs).
const topicSeriesCheck = `fetch(document.querySelector('[data-testid="map"]').getAttribute('data-map-url')).then(function (r) { return r.json(); }).then(function (d) {
	var series = window.taglensCharts["map"].getOption().series, seen = 0, topics = {};
	if (!(d.topics > 1)) return "the map has " + d.topics + " topics";
	for (var s = 0; s < series.length; s++) {
		var m = /^topic (\d+)$/.exec(series[s].name);
		if (!m) return "series " + series[s].name;
		var k = Number(m[1]) - 1;
		if (series[s].itemStyle.color !== window.taglens.topicColor(k)) return series[s].name + " in " + series[s].itemStyle.color;
		for (var j = 0; j < series[s].data.length; j++) {
			var i = series[s].data[j][2];
			if (d.docs[d.doc[i]].topic !== k) return "point " + i + " of topic " + d.docs[d.doc[i]].topic + " in " + series[s].name;
			seen++;
		}
		topics[k] = true;
	}
	if (seen !== d.x.length) return seen + " of " + d.x.length + " points in topic series";
	if (Object.keys(topics).length < 2) return "one topic only";
	return "";
})`

// TestBrowserMapColourTopic colours a term map and the whole-space map by
// LDA topic in headless Chromium: every point is in its topic's series (term
// map: its document's topic) or carries its term's topic (whole space), in
// the topic's colour, and the URL keeps the colouring when the page is opened
// again.
func TestBrowserMapColourTopic(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "explorer", time.Minute, openMap(base+"/explorer?model="+modelID+"&term=guitar"))
	waitMapReady(t, ctx, "term=guitar")
	pickColour(t, ctx, "color-select", "topic", "explorer-submit")
	waitMapReady(t, ctx, "color=topic")
	check := func(what string) {
		t.Helper()
		msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](topicSeriesCheck, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if msg != "" {
			t.Errorf("%s: %s", what, msg)
		}
	}
	check("term map by topic")
	screenshot(t, ctx, shotDir(t), "5f-term-map-topics")
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "reopen", time.Minute, chromedp.Navigate(href))
	waitMapReady(t, ctx, "color=topic")
	sel, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="color-select"]').value`))
	if sel != "topic" {
		t.Errorf("reopened, the colour select says %q", sel)
	}
	check("term map by topic, reopened")

	// The whole space: each term in its most probable topic.
	step(t, ctx, "whole space", time.Minute, openMap(base+"/explorer?view=space&model="+modelID))
	waitJS(t, ctx, "whole-space map drawn", 2*time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true'`)
	step(t, ctx, "colour by topic", 10*time.Second,
		chromedp.SetValue(tid("space-color"), "topic"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="space-color"]').dispatchEvent(new Event("change"))`))
	spaceCheck := `fetch(document.querySelector('[data-testid="space-map"]').getAttribute('data-space-url')).then(function (r) { return r.json(); }).then(function (d) {
		var o = window.taglensCharts["space"].getOption(), vm = o.visualMap[0], pts = o.series[0].data, topics = {};
		if (!vm || vm.type !== "piecewise" || vm.pieces.length !== d.topics + 1) return "visual map " + JSON.stringify(vm && vm.pieces);
		for (var p = 0; p < vm.pieces.length; p++) if (vm.pieces[p].color !== window.taglens.topicColor(vm.pieces[p].value)) return "piece " + p;
		if (pts.length !== d.terms.length) return pts.length + " of " + d.terms.length + " terms drawn";
		for (var j = 0; j < pts.length; j++) {
			if (pts[j][3] !== d.topic[pts[j][2]]) return "term " + pts[j][2] + ": " + pts[j][3] + " against " + d.topic[pts[j][2]];
			topics[pts[j][3]] = true;
		}
		if (Object.keys(topics).length < 2) return "one topic only";
		var key = document.querySelectorAll('[data-testid="space-key"] .key-item');
		if (key.length !== Object.keys(topics).length) return "the key lists " + key.length + " of " + Object.keys(topics).length + " topics";
		return location.search.indexOf("color=topic") >= 0 ? "" : "the URL " + location.search;
	})`
	waitJS(t, ctx, "whole space by topic", 20*time.Second, `window.taglensCharts["space"].getOption().visualMap.length === 1`)
	msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](spaceCheck, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if msg != "" {
		t.Errorf("whole space by topic: %s", msg)
	}
	screenshot(t, ctx, shotDir(t), "5g-space-topics")
	href, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	step(t, ctx, "reopen the whole space", time.Minute, chromedp.Navigate(href))
	waitJS(t, ctx, "whole space reopened by topic", time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true' &&
		 document.querySelector('[data-testid="space-color"]').value === "topic" && window.taglensCharts["space"].getOption().visualMap.length === 1`)
	if msg, err = chromedp.Run(ctx, chromedp.Evaluate[string](spaceCheck, chromedp.EvalAwaitPromise)); err != nil || msg != "" {
		t.Errorf("whole space by topic, reopened: %s %v", msg, err)
	}
}

// TestBrowserMapColourOOV colours by OOV in headless Chromium: the context
// map of a document with a reserved OOV tag (its OOV points in the OOV
// colour, every in-vocabulary point grey), then a term map with that document
// overlaid (its OOV tag apart from the term's instances and the accompanying
// terms); the URL keeps the colouring.
func TestBrowserMapColourOOV(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "explorer", time.Minute, chromedp.Navigate(base+"/explorer?model="+modelID), chromedp.WaitVisible(tid("context-docs")))
	type doc struct {
		ID   string
		Tags string
	}
	d, err := chromedp.Run(ctx, chromedp.Evaluate[doc](`(function () {
		var li = document.querySelector('[data-testid="context-docs"] li');
		var oov = Array.from(li.querySelectorAll(".badge.oov")).map(function (b) { return b.textContent.replace(/ \(OOV\)$/, ""); });
		var tags = li.querySelector(".muted").textContent.split(",").map(function (s) { return s.trim(); });
		return {ID: li.querySelector("code").textContent, Tags: tags.filter(function (t) { return oov.indexOf(t) < 0; }).join(",")};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "context document", 10*time.Second, chromedp.SetValue(tid("context-doc-input"), d.ID))
	pickColour(t, ctx, "context-color-select", "oov", "context-submit")
	waitMapReady(t, ctx, "color=oov")
	// check: "" when the OOV series (at least one) are in the OOV colour and
	// the others (at least one) in the in-vocabulary grey.
	const check = `(function () {
		var series = window.taglensCharts["map"].getOption().series, oov = 0, iv = 0;
		for (var s = 0; s < series.length; s++) {
			var x = series[s], isOOV = x.name.indexOf("OOV term") === 0;
			if (x.id === "gl-pointer") continue;
			if (!isOOV && x.name.indexOf("in vocabulary") !== 0) return "series " + x.name;
			if (x.itemStyle.color !== (isOOV ? "#e8590c" : "#94a3b8")) return x.name + " in " + x.itemStyle.color;
			if (isOOV) oov++; else iv++;
		}
		return oov > 0 && iv > 0 ? "" : oov + " OOV and " + iv + " in-vocabulary series";
	})()`
	for _, what := range []string{"context map", "term map with the document overlaid"} {
		msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](check))
		if err != nil {
			t.Fatal(err)
		}
		if msg != "" {
			t.Errorf("%s by OOV: %s", what, msg)
		}
		sel, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="color-select"]') || document.querySelector('[data-testid="context-color-select"]')).value`))
		if sel != "oov" {
			t.Errorf("%s: the colour select says %q", what, sel)
		}
		if what == "context map" {
			screenshot(t, ctx, shotDir(t), "5h-context-map-oov")
			// The term map of one of the document's tags, the document overlaid.
			term := strings.TrimSpace(strings.Split(d.Tags, ",")[0])
			step(t, ctx, "term map", time.Minute, openMap(fmt.Sprintf("%s/explorer?model=%s&term=%s&docs=%s&color=oov", base, modelID, term, d.ID)))
			waitMapReady(t, ctx, "color=oov")
		}
	}
	screenshot(t, ctx, shotDir(t), "5i-term-map-oov")

	// The whole space holds the corpus's tags outside the vocabulary too,
	// after its terms: by OOV they are in the OOV colour, the terms grey; an
	// OOV tag can be selected (from the URL) and gets its nearest terms.
	step(t, ctx, "whole space", time.Minute, openMap(base+"/explorer?view=space&model="+modelID+"&color=oov"))
	waitJS(t, ctx, "whole-space map drawn by OOV", 2*time.Minute,
		`!!document.querySelector('[data-testid="space-map"]') && document.querySelector('[data-testid="space-map"]').getAttribute('data-ready') === 'true' &&
		 document.querySelector('[data-testid="space-color"]').value === "oov" && window.taglensCharts["space"].getOption().visualMap.length === 1`)
	type spaceOOV struct {
		Msg, Term string
	}
	r, err := chromedp.Run(ctx, chromedp.Evaluate[spaceOOV](`fetch(document.querySelector('[data-testid="space-map"]').getAttribute('data-space-url')).then(function (r) { return r.json(); }).then(function (d) {
		var o = window.taglensCharts["space"].getOption(), vm = o.visualMap[0], pts = o.series[0].data, n = [0, 0];
		if (!(d.oov_from > 0 && d.oov_from < d.terms.length)) return {Msg: "oov_from " + d.oov_from + " of " + d.terms.length + " points"};
		if (!vm || vm.type !== "piecewise" || vm.pieces.length !== 2 || vm.pieces[0].color !== "#94a3b8" || vm.pieces[1].color !== "#e8590c") return {Msg: "visual map " + JSON.stringify(vm && vm.pieces)};
		if (pts.length !== d.terms.length) return {Msg: pts.length + " of " + d.terms.length + " points drawn"};
		for (var j = 0; j < pts.length; j++) {
			var want = pts[j][2] >= d.oov_from ? 1 : 0;
			if (pts[j][3] !== want) return {Msg: "point " + pts[j][2] + " (" + d.terms[pts[j][2]] + "): " + pts[j][3] + ", want " + want};
			n[want]++;
		}
		var key = Array.from(document.querySelectorAll('[data-testid="space-key"] .key-item')).map(function (k) { return k.textContent; });
		if (key.length !== 2 || key[0].indexOf("(" + n[1] + ")") < 0 || key[1].indexOf("(" + n[0] + ")") < 0) return {Msg: "key " + key.join(" | ") + " for " + n};
		return {Msg: "", Term: d.terms[d.terms.length - 1]};
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if r.Msg != "" {
		t.Fatalf("whole space by OOV: %s", r.Msg)
	}
	screenshot(t, ctx, shotDir(t), "5j-space-oov")
	step(t, ctx, "an OOV tag selected", time.Minute, openMap(base+"/explorer?view=space&model="+modelID+"&color=oov&sel="+url.QueryEscape(r.Term)), listNeighbours())
	waitJS(t, ctx, "the OOV tag's neighbours", time.Minute,
		`(function () { var b = document.querySelector('[data-testid="space-map"]'); return !!b && Number(b.getAttribute('data-neighbours')) > 0; })()`)
	sel, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("space-selected").textContent`))
	if !strings.Contains(sel, r.Term) || !strings.Contains(sel, "outside the vocabulary") {
		t.Errorf("the selection reads %q; want %q, outside the vocabulary", sel, r.Term)
	}
}

// TestBrowserMapTerms draws the instances of two terms in one map in headless
// Chromium: typed into the term box as "guitar, drums", coloured by term each
// point is in its own term's series; by sense cluster every series is named
// by its term; the status line names both terms.
func TestBrowserMapTerms(t *testing.T) {
	ctx := browser(t)
	ts, _, modelID := trainedServer(t)
	base := liveServer(t, ts)
	step(t, ctx, "explorer", time.Minute, openMap(base+"/explorer?model="+modelID+"&term=guitar"))
	waitMapReady(t, ctx, "term=guitar")
	step(t, ctx, "two terms", 10*time.Second, chromedp.SetValue(tid("term-input"), "guitar, drums"))
	pickColour(t, ctx, "color-select", "term", "explorer-submit")
	waitMapReady(t, ctx, "color=term")
	const check = `fetch(document.querySelector('[data-testid="map"]').getAttribute('data-map-url')).then(function (r) { return r.json(); }).then(function (d) {
		var series = window.taglensCharts["map"].getOption().series, seen = {}, n = 0, byTerm = %v;
		for (var s = 0; s < series.length; s++) {
			var x = series[s];
			if (x.id === "gl-pointer") continue;
			for (var j = 0; j < x.data.length; j++) {
				var term = d.terms[d.term_of[x.data[j][2]]];
				if (byTerm ? x.name !== term : x.name.indexOf(term + " · sense cluster ") !== 0) return "point of " + term + " in series " + x.name;
				seen[term] = true;
				n++;
			}
		}
		if (n !== d.x.length) return n + " of " + d.x.length + " points in the series";
		if (!seen.guitar || !seen.drums) return "terms seen: " + Object.keys(seen).join(", ");
		var st = document.getElementById("map-status").textContent;
		return st.indexOf("terms “guitar”, “drums”") >= 0 ? "" : "status " + st;
	})`
	for _, byTerm := range []bool{true, false} {
		msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(check, byTerm), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if msg != "" {
			t.Errorf("colour by term %v: %s", byTerm, msg)
		}
		if byTerm {
			screenshot(t, ctx, shotDir(t), "5k-term-map-two-terms")
			pickColour(t, ctx, "color-select", "cluster", "explorer-submit")
			waitMapReady(t, ctx, "color=cluster")
		}
	}
}
