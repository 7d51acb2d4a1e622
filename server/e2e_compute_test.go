package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// mapPageState is a script telling what an explorer page says of its map:
// "compute" (not computed: its "Compute this map" button is shown),
// "ready", "computing" (its job is followed), "none" (the page has no map),
// or "" while it is still loading.
const mapPageState = `(function () {
	var f = document.querySelector('[data-testid="map-compute"]');
	if (f && !f.hidden) return "compute";
	var box = document.querySelector('[data-testid="map"], [data-testid="space-map"], [data-testid="instances-map"]');
	if (!box) return document.readyState === "complete" ? "none" : "";
	if (box.getAttribute("data-ready") === "true") return "ready";
	var st = document.querySelector(".map-status");
	var s = st ? st.getAttribute("data-state") : "";
	return s === "queued" || s === "running" ? "computing" : "";
})()`

// waitMapSettled waits until an explorer page's map is drawn, offers to be
// computed or is absent: the page's own requests are done. Its selection
// tools are bound after that (static/js/select.js, when the browser is next
// idle), in the space the page reserved for them, so nothing below the map
// moves (TestBrowserMapToolsNoShift).
func waitMapSettled(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, "the page's map settled", 2*time.Minute, `["ready", "compute", "none"].indexOf(`+mapPageState+`) >= 0`)
}

// openMap opens an explorer page and, when its map is not computed, presses
// "Compute this map" (a POST of the page's parameters, answered by the same
// page) as a person would: a GET only reads a map. It returns once the page
// shows its map, follows its job or has none, within a minute.
func openMap(url string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Navigate(url), computeMap())
}

// mapState evaluates mapPageState on a page until done accepts its answer,
// for up to a minute, tolerating navigations (a page that still has
// window.taglensBeforeCompute is the one before the POST: "").
func mapState(ctx context.Context, tg *chromedp.Target, done func(string) bool) (string, error) {
	deadline := time.Now().Add(time.Minute)
	var last error
	for time.Now().Before(deadline) {
		ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err := chromedp.Evaluate[string](`window.taglensBeforeCompute ? "" : `+mapPageState)(ectx, tg)
		cancel()
		if err == nil && done(s) {
			return s, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("the explorer page did not show its map or its state within a minute (last error %v)", last)
}

// computeMap is openMap's second half, for a page opened otherwise (a
// link): it presses "Compute this map" when the page shows it.
func computeMap() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		var none chromedp.Void
		state, err := mapState(ctx, tg, func(s string) bool { return s != "" })
		if err != nil || state != "compute" {
			return none, err
		}
		if _, err := chromedp.Evaluate[bool](`window.taglensBeforeCompute = true`)(ctx, tg); err != nil {
			return none, err
		}
		if _, err := chromedp.Click(tid("map-compute-submit"))(ctx, tg); err != nil {
			return none, err
		}
		_, err = mapState(ctx, tg, func(s string) bool { return s == "computing" || s == "ready" })
		return none, err
	}
}

// listNeighbours waits, on a whole-space page whose URL selects a term, for
// its nearest terms, and presses "List the nearest terms" when the page
// offers it (restoring a selection only reads them: this server may not
// have computed the model's centroids yet).
func listNeighbours() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		var none chromedp.Void
		b, err := chromedp.Poll[string](`document.querySelectorAll('[data-testid="space-neighbours"] li').length > 0 ? "listed" :
			(document.querySelector('[data-testid="space-neighbours-compute"]') ? "offered" : "")`,
			chromedp.WithPollingTimeout(2*time.Minute))(ctx, tg)
		if err != nil || b != "offered" {
			return none, err
		}
		_, err = chromedp.Click(tid("space-neighbours-compute"))(ctx, tg)
		return none, err
	}
}
