package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// narrowJS lists what a phone's screen (%d CSS px wide) hides or crowds on
// the open page: a header taller than 70 px; a field, label or help of the
// training form outside the screen or the box it scrolls in; an evaluation
// title taller than 160 px; a MAP or AUC column of the score table that its
// box cannot scroll into view, or that hides the model names when it is;
// a chart legend that pages or runs over the axis names under it.
const narrowJS = `(function (w) {
	var out = [];
	var name = function (e) { return e.tagName.toLowerCase() + (e.dataset && e.dataset.testid ? "[" + e.dataset.testid + "]" : e.name ? "[name=" + e.name + "]" : "") + " '" + (e.textContent || "").trim().slice(0, 20) + "'"; };
	var head = document.querySelector("header.top").getBoundingClientRect();
	if (head.height > 70) out.push("the header is " + Math.round(head.height) + " px tall");
	var form = document.querySelector('[data-testid="train-form"]');
	if (form) form.querySelectorAll("label, input, select, button, td").forEach(function (e) {
		if (e.type === "hidden") return;
		var r = e.getBoundingClientRect(), right = w, left = 0;
		if (r.width === 0) return;
		for (var p = e.parentElement; p; p = p.parentElement) {
			if (/auto|scroll|hidden/.test(getComputedStyle(p).overflowX)) { var b = p.getBoundingClientRect(); right = Math.min(right, b.right); left = Math.max(left, b.left); }
		}
		if (r.left < left - 0.5 || r.right > right + 0.5) out.push("training form: " + name(e) + " at " + Math.round(r.left) + ".." + Math.round(r.right) + " px, visible " + Math.round(left) + ".." + Math.round(right));
	});
	var table = document.querySelector('[data-testid="score-table"]');
	if (table) {
		var h1 = document.querySelector("main h1").getBoundingClientRect();
		if (h1.height > 160) out.push("the evaluation's title is " + Math.round(h1.height) + " px tall");
		var wrap = table.parentElement, wr = wrap.getBoundingClientRect();
		["MAP", "AUC"].forEach(function (col) {
			var th = Array.from(table.querySelectorAll("thead th")).filter(function (c) { return c.textContent.trim() === col; })[0];
			if (!th) { out.push("no " + col + " column"); return; }
			th.scrollIntoView({inline: "end", block: "center"});
			var r = th.getBoundingClientRect(); wr = wrap.getBoundingClientRect();
			if (r.left < Math.max(0, wr.left) - 0.5 || r.right > Math.min(w, wr.right) + 0.5) { out.push(col + " out of reach at " + Math.round(r.left) + ".." + Math.round(r.right) + " px"); return; }
			var hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (hit !== th && !th.contains(hit)) out.push(col + " covered by " + (hit ? name(hit) : "nothing"));
			var first = table.querySelector("tbody td").getBoundingClientRect();
			if (first.left < Math.max(0, wr.left) - 0.5 || first.right > r.left + 0.5) out.push("scrolled to " + col + ", the model names are out of view (" + Math.round(first.left) + ".." + Math.round(first.right) + " px)");
		});
		wrap.scrollLeft = 0;
	}
	var charts = window.taglensCharts || {};
	Object.keys(charts).forEach(function (id) {
		var c = charts[id], o = c.getOption(), lm = c.getModel().getComponent("legend", 0), gm = c.getModel().getComponent("grid", 0);
		if (!lm || !gm || lm.get("show") === false) return;
		var v = c.getViewOfComponentModel(lm);
		if (v._showController) out.push("chart " + id + ": the legend pages");
		var r = v.group.getBoundingRect(), bottom = v.group.y + r.y + r.height, g = gm.coordinateSystem.getRect();
		var named = (o.yAxis || []).some(function (a) { return !!a.name; });
		if (bottom > g.y - (named ? 26 : 0)) out.push("chart " + id + ": the legend reaches " + Math.round(bottom) + " px, over the " + (named ? "y axis name" : "plot") + " from " + Math.round(g.y - (named ? 26 : 0)) + " px");
	});
	return out;
})(%d)`

// narrowChecks fails the test with what narrowJS finds on the open page,
// once its charts are drawn.
func narrowChecks(t *testing.T, ctx context.Context, page string, width int) {
	t.Helper()
	waitJS(t, ctx, page+": charts drawn", time.Minute, `(function () {
		var m = document.querySelector('[data-testid="map"], [data-testid="space-map"]');
		if (m && m.getAttribute("data-ready") !== "true") return false;
		return document.querySelectorAll(".chart").length === Object.keys(window.taglensCharts || {}).length;
	})()`)
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(narrowJS, width)))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	for _, f := range found {
		t.Errorf("%s at %d px: %s", page, width, f)
	}
}
