// taglens's selections on the explorer's maps: a toolbar above a map (pan,
// lasso, box; the density layer and the region labels on or off), and under
// it small histograms of the points' metadata, the selection's list and its
// CSV download. The map and the histograms filter each other: a lasso or a
// box selects the points inside it, brushing a histogram's bars (a click, or
// a drag across them) keeps the points of those bars, and the selection is
// the points that pass both. The map washes out the rest (overlay.js), the
// histograms draw the selection's counts over the whole map's, and the list
// names the selection's points. The term map (app.js) and the whole-space
// map (space.js) hand their points over through termMap and spaceMap. The
// page renders the toolbar and the panel with the map, disabled (views/
// layout.templ MapTools and SelectionPanel), and a map binds them once it
// is drawn: their space is taken from the first paint, so binding them
// moves nothing under the pointer.
(function () {
  "use strict";

  var LIST_MAX = 200;  // points listed (the CSV has them all)
  var CAT_MAX = 8;     // categories a categorical histogram shows
  var NUM_BINS = 16;   // bins of a numeric histogram with a wide range

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // numFacet bins numbers: one bin per integer over a narrow range, else
  // NUM_BINS equal bins (log2 bins with log).
  function numFacet(id, name, values, log) {
    var n = values.length, lo = Infinity, hi = -Infinity, i;
    var v = log ? values.map(function (a) { return Math.log2(Math.max(1, a)); }) : values;
    for (i = 0; i < n; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i]; }
    var labels = [], bin = new Int32Array(n), ints = !log && hi - lo <= 24 && values.every(Number.isInteger);
    if (log) {
      lo = Math.floor(lo); hi = Math.floor(hi);
      for (i = lo; i <= hi; i++) labels.push(Math.pow(2, i) + "–" + (Math.pow(2, i + 1) - 1));
      for (i = 0; i < n; i++) bin[i] = Math.floor(v[i]) - lo;
    } else if (ints) {
      for (i = lo; i <= hi; i++) labels.push(String(i));
      for (i = 0; i < n; i++) bin[i] = v[i] - lo;
    } else {
      var w = (hi - lo) / NUM_BINS || 1;
      for (i = 0; i < NUM_BINS; i++) labels.push((lo + i * w).toFixed(1) + "–" + (lo + (i + 1) * w).toFixed(1));
      for (i = 0; i < n; i++) bin[i] = Math.min(NUM_BINS - 1, Math.floor((v[i] - lo) / w));
    }
    return { id: id, name: name, numeric: true, labels: labels, binsOf: function (i) { return [bin[i]]; }, binOf: function (i) { return bin[i]; } };
  }

  // codeFacet counts the small integer codes codeOf(i) of n points (−1:
  // none) and keeps the CAT_MAX most frequent, labelled by labelOf(code);
  // one bin a point, kept in an Int32Array (a map of 10^6 points).
  function codeFacet(id, name, codeOf, labelOf, n) {
    var count = new Map(), i, c;
    for (i = 0; i < n; i++) { c = codeOf(i); if (c >= 0) count.set(c, (count.get(c) || 0) + 1); }
    var codes = Array.from(count.keys()).sort(function (a, b) { return count.get(b) - count.get(a) || a - b; }).slice(0, CAT_MAX);
    var index = new Map();
    codes.forEach(function (c, k) { index.set(c, k); });
    var bin = function (i) { var k = index.get(codeOf(i)); return k === undefined ? -1 : k; };
    return { id: id, name: name, numeric: false, labels: codes.map(labelOf), binOf: bin,
      binsOf: function (i) { var k = bin(i); return k < 0 ? [] : [k]; } };
  }

  // catFacet counts categories (each point has one, or an array of them)
  // and keeps the CAT_MAX most frequent, in that order.
  function catFacet(id, name, valueOf, n) {
    var count = {}, i;
    for (i = 0; i < n; i++) [].concat(valueOf(i)).forEach(function (c) { count[c] = (count[c] || 0) + 1; });
    var labels = Object.keys(count).sort(function (a, b) { return count[b] - count[a] || a.localeCompare(b, "en", { numeric: true }); }).slice(0, CAT_MAX);
    var index = {};
    labels.forEach(function (c, k) { index[c] = k; });
    return { id: id, name: name, numeric: false, labels: labels, binsOf: function (i) {
      return [].concat(valueOf(i)).map(function (c) { return index[c]; }).filter(function (k) { return k !== undefined; });
    } };
  }

  // csvField quotes a CSV field when it needs to (RFC 4180).
  function csvField(v) {
    var s = String(v === undefined || v === null ? "" : v);
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  // inside tells whether (x, y) is inside the polygon poly (ray casting).
  function inside(poly, x, y) {
    var c = false;
    for (var i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      var xi = poly[i][0], yi = poly[i][1], xj = poly[j][0], yj = poly[j][1];
      if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) c = !c;
    }
    return c;
  }

  // Selector binds a map: src = {x, y, tags(i), weight(i)?, facets, columns
  // [{name, value(i)}], item(i) → {title, detail}, pick(i)}.
  function Selector(box, chart, src) {
    var old = box.taglensSelector;
    if (old) old.dispose();
    box.taglensSelector = this;
    this.box = box; this.chart = chart; this.src = src; this.n = src.x.length;
    this.overlay = new window.taglensOverlay.Overlay(chart, box);
    this.lasso = null;   // Uint8Array of the points inside the lasso or box, or null
    this.brush = {};     // facet id → {bin: true}
    this.mode = "pan";
    // A facet of one bin a point (binOf; −1: none) keeps its bins in an
    // Int32Array, others an array of bins a point.
    this.bins = src.facets.map(function (f) {
      var b = f.binOf ? new Int32Array(this.n) : new Array(this.n), i;
      if (f.binOf) for (i = 0; i < this.n; i++) b[i] = f.binOf(i);
      else for (i = 0; i < this.n; i++) b[i] = f.binsOf(i);
      return b;
    }, this);
    this.build();
    var a = window.taglensDensity.analyse(src);
    this.overlay.setData(src.x, src.y, a);
    this.refresh();
  }

  // dispose unbinds the map: the toolbar and the panel that the page
  // rendered go back to their state before binding (their space stays
  // reserved).
  Selector.prototype.dispose = function () {
    this.events.abort();
    resetTools(this.tools);
    resetPanel(this.panel, this.empty);
    this.overlay.over.remove();
    this.overlay.under.remove();
  };

  // The test ids of the toolbar's and the panel's parts (data-role), given
  // when a map binds them: a test that waits for one waits for tools that
  // work, not for the disabled ones the page rendered.
  var TESTIDS = { clear: "selection-clear", density: "toggle-density", labels: "toggle-labels", hists: "histograms",
    selection: "selection", summary: "selection-summary", csv: "selection-csv", list: "selection-list" };

  function part(root, role) { return root.querySelector('[data-role="' + role + '"]'); }

  // resetTools puts a toolbar back as the page rendered it: disabled, Pan
  // pressed, the checkboxes as rendered, no test ids.
  function resetTools(tools) {
    tools.removeAttribute("data-testid");
    tools.querySelectorAll("button, input").forEach(function (c) {
      c.disabled = true;
      c.removeAttribute("data-testid");
      if (c.type === "checkbox") c.checked = c.defaultChecked;
      if (c.hasAttribute("data-mode")) c.setAttribute("aria-pressed", c.getAttribute("data-mode") === "pan" ? "true" : "false");
    });
  }

  // resetPanel puts a panel back as the page rendered it (empty: what it
  // held before it was bound).
  function resetPanel(panel, empty) {
    part(panel, "hists").replaceChildren.apply(part(panel, "hists"), empty.hists);
    part(panel, "summary").textContent = empty.summary;
    part(panel, "list").replaceChildren();
    part(panel, "csv").disabled = true;
    panel.removeAttribute("data-testid");
    panel.querySelectorAll("[data-testid]").forEach(function (e) { e.removeAttribute("data-testid"); });
  }

  // build binds the toolbar just before the map's box and the panel just
  // after it, both rendered with the page (views/layout.templ MapTools and
  // SelectionPanel), so that binding them moves nothing below the map.
  Selector.prototype.build = function () {
    var self = this, box = this.box, prev = box.previousElementSibling, next = box.nextElementSibling;
    if (!(prev && prev.classList.contains("map-tools")) || !(next && next.classList.contains("selection-panel"))) {
      throw new Error("select.js: a map's box needs MapTools just before it and SelectionPanel just after it");
    }
    // Every listener on the page's toolbar and panel goes with dispose.
    this.events = new AbortController();
    var on = { signal: this.events.signal };
    var tools = this.tools = prev, panel = this.panel = next;

    tools.setAttribute("data-testid", "map-tools");
    tools.querySelectorAll("[data-mode]").forEach(function (b) {
      var mode = b.getAttribute("data-mode");
      b.setAttribute("data-testid", "tool-" + mode);
      b.addEventListener("click", function () { self.setMode(mode); }, on);
    });
    var clear = part(tools, "clear"), dens = part(tools, "density"), labs = part(tools, "labels");
    clear.addEventListener("click", function () { self.clear(); }, on);
    dens.addEventListener("change", function () { self.overlay.setDensity(dens.checked); }, on);
    labs.addEventListener("change", function () { self.overlay.setLabels(labs.checked); }, on);

    panel.setAttribute("data-testid", "selection-panel");
    this.hists = part(panel, "hists");
    this.summary = part(panel, "summary");
    this.csv = part(panel, "csv");
    this.list = part(panel, "list");
    // What the page's panel shows before binding, for dispose to restore.
    this.empty = { hists: Array.from(this.hists.childNodes), summary: this.summary.textContent };
    this.csv.addEventListener("click", function () { self.download(); }, on);
    [tools, panel].forEach(function (root) {
      root.querySelectorAll("[data-role]").forEach(function (e) {
        var id = TESTIDS[e.getAttribute("data-role")];
        if (id) e.setAttribute("data-testid", id);
      });
    });
    // The density layer starts off and the labels on (the checkboxes as
    // rendered), then the controls work; refresh sets the CSV button's.
    tools.querySelectorAll("button, input").forEach(function (c) {
      if (c.type === "checkbox") c.checked = c.defaultChecked;
      c.disabled = false;
    });
    this.bindDrag();
  };

  Selector.prototype.setMode = function (mode) {
    this.mode = mode;
    this.tools.querySelectorAll("[data-mode]").forEach(function (b) { b.setAttribute("aria-pressed", b.getAttribute("data-mode") === mode ? "true" : "false"); });
    var o = this.overlay.over;
    o.style.pointerEvents = mode === "pan" ? "none" : "auto";
    o.style.cursor = mode === "pan" ? "" : "crosshair";
    o.style.touchAction = mode === "pan" ? "" : "none";
    this.box.setAttribute("data-mode", mode);
  };

  // bindDrag draws a lasso (the pointer's path) or a box (from the press to
  // the pointer) on the overlay; the release selects the points inside.
  Selector.prototype.bindDrag = function () {
    var self = this, o = this.overlay.over, path = null, start = null;
    var at = function (e) { var r = o.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    o.addEventListener("pointerdown", function (e) {
      if (self.mode === "pan") return;
      e.preventDefault();
      if (o.setPointerCapture) { try { o.setPointerCapture(e.pointerId); } catch (err) { /* a synthesised pointer */ } }
      start = at(e);
      path = [start];
      self.overlay.setPath(path);
    });
    o.addEventListener("pointermove", function (e) {
      if (!path) return;
      var p = at(e), last = path[path.length - 1];
      if (self.mode === "box") path = [start, [p[0], start[1]], p, [start[0], p[1]]];
      else if (Math.abs(p[0] - last[0]) + Math.abs(p[1] - last[1]) >= 2) path.push(p);
      self.overlay.setPath(path);
    });
    var end = function () {
      if (!path) return;
      var poly = path;
      path = null;
      self.overlay.setPath(null);
      if (poly.length >= 3) self.selectPolygon(poly);
    };
    o.addEventListener("pointerup", end);
    o.addEventListener("pointercancel", function () { path = null; self.overlay.setPath(null); });
  };

  // selectPolygon selects the points inside the polygon poly (pixels).
  Selector.prototype.selectPolygon = function (poly) {
    var ov = this.overlay, d = poly.map(function (p) { return ov.toData(p[0], p[1]); });
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    d.forEach(function (p) { x0 = Math.min(x0, p[0]); x1 = Math.max(x1, p[0]); y0 = Math.min(y0, p[1]); y1 = Math.max(y1, p[1]); });
    var m = new Uint8Array(this.n), x = this.src.x, y = this.src.y;
    for (var i = 0; i < this.n; i++) {
      if (x[i] < x0 || x[i] > x1 || y[i] < y0 || y[i] > y1) continue;
      if (inside(d, x[i], y[i])) m[i] = 1;
    }
    this.lasso = m;
    this.refresh();
  };

  // selectPoints selects the points of idx (as a lasso around them would).
  Selector.prototype.selectPoints = function (idx) {
    var m = new Uint8Array(this.n);
    idx.forEach(function (i) { m[i] = 1; });
    this.lasso = m;
    this.refresh();
  };

  Selector.prototype.clear = function () {
    this.lasso = null;
    this.brush = {};
    this.refresh();
  };

  // active is the selection: the points inside the lasso (if any) and in
  // the brushed bars of every brushed histogram; null when nothing filters.
  Selector.prototype.active = function () {
    var brushed = this.src.facets.map(function (f, k) { return { k: k, set: this.brush[f.id] }; }, this)
      .filter(function (b) { return b.set && Object.keys(b.set).length; });
    if (!this.lasso && !brushed.length) return null;
    var m = new Uint8Array(this.n), bins = this.bins;
    for (var i = 0; i < this.n; i++) {
      if (this.lasso && !this.lasso[i]) continue;
      var ok = true;
      for (var b = 0; b < brushed.length && ok; b++) {
        var bs = bins[brushed[b].k][i];
        ok = typeof bs === "number" ? !!brushed[b].set[bs] : bs.some(function (j) { return brushed[b].set[j]; });
      }
      if (ok) m[i] = 1;
    }
    return m;
  };

  Selector.prototype.refresh = function () {
    var m = this.active();
    this.mask = m;
    this.overlay.setMask(m);
    var count = 0;
    if (m) for (var i = 0; i < this.n; i++) count += m[i];
    this.box.setAttribute("data-selected-points", m ? String(count) : "");
    this.drawHists(m);
    this.drawList(m, count);
  };

  // drawHists draws each facet's bars: the whole map's counts in grey, the
  // selection's over them; brushed bars are outlined.
  Selector.prototype.drawHists = function (m) {
    var self = this;
    this.hists.replaceChildren();
    this.src.facets.forEach(function (f, k) {
      var all = new Array(f.labels.length).fill(0), sel = new Array(f.labels.length).fill(0);
      var bins = self.bins[k];
      if (bins instanceof Int32Array) {
        for (var i = 0; i < bins.length; i++) if (bins[i] >= 0) { all[bins[i]]++; if (m && m[i]) sel[bins[i]]++; }
      } else bins.forEach(function (bs, i) { bs.forEach(function (b) { all[b]++; if (m && m[i]) sel[b]++; }); });
      var fig = el("figure", { class: "hist" + (f.numeric ? " hist-num" : " hist-cat"), "data-testid": "hist-" + f.id });
      fig.appendChild(el("figcaption", {}, f.name));
      fig.appendChild(f.numeric ? self.columns(f, all, sel, m) : self.rows(f, all, sel, m));
      self.hists.appendChild(fig);
    });
  };

  // rows draws a categorical histogram: a row a category, clickable.
  Selector.prototype.rows = function (f, all, sel, m) {
    var self = this, max = Math.max.apply(null, all.concat([1])), brush = this.brush[f.id] || {};
    var list = el("div", { class: "hist-rows" });
    f.labels.forEach(function (label, b) {
      var row = el("button", { type: "button", class: "hist-row" + (brush[b] ? " brushed" : ""), "data-bin": String(b), title: "keep the points of " + label });
      var track = el("span", { class: "track" }), bar = el("i", { class: "all" }), on = el("i", { class: "sel", "data-count": String(sel[b]) });
      bar.style.width = (100 * all[b] / max) + "%";
      on.style.width = (100 * (m ? sel[b] : 0) / max) + "%";
      track.append(bar, on);
      row.append(el("span", { class: "name" }, label), track, el("span", { class: "n" }, m ? sel[b] + "/" + all[b] : String(all[b])));
      row.addEventListener("click", function () { self.toggle(f.id, [b], !brush[b]); });
      list.appendChild(row);
    });
    return list;
  };

  // columns draws a numeric histogram as an SVG of bars; a drag across
  // them brushes a range, a click one bar (again: clears it).
  Selector.prototype.columns = function (f, all, sel, m) {
    var self = this, NS = "http://www.w3.org/2000/svg", W = 240, H = 64, nb = f.labels.length, bw = W / nb;
    var max = Math.max.apply(null, all.concat([1])), brush = this.brush[f.id] || {};
    var wrap = el("div", { class: "hist-num-box" }), svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("class", "hist-svg");
    var from = -1;
    var rect = function (cls, b, v) {
      var r = document.createElementNS(NS, "rect"), h = v ? Math.max(1, H * v / max) : 0;
      r.setAttribute("class", cls);
      r.setAttribute("x", String(b * bw + 1));
      r.setAttribute("width", String(Math.max(1, bw - 2)));
      r.setAttribute("y", String(H - h));
      r.setAttribute("height", String(h));
      r.setAttribute("data-bin", String(b));
      return r;
    };
    for (var b = 0; b < nb; b++) {
      var hit = rect("hit" + (brush[b] ? " brushed" : ""), b, max);
      var t = document.createElementNS(NS, "title");
      t.textContent = f.labels[b] + ": " + (m ? sel[b] + " of " : "") + all[b];
      hit.appendChild(t);
      svg.append(hit, rect("all", b, all[b]), rect("sel", b, m ? sel[b] : 0));
    }
    // The range's ends under the bars (HTML: the SVG stretches).
    var axis = el("div", { class: "hist-axis" });
    axis.append(el("span", {}, f.labels[0].split("–")[0]), el("span", {}, f.labels[nb - 1].split("–").pop()));
    wrap.append(svg, axis);
    var binAt = function (e) {
      var r = svg.getBoundingClientRect();
      return Math.max(0, Math.min(nb - 1, Math.floor((e.clientX - r.left) / r.width * nb)));
    };
    svg.addEventListener("pointerdown", function (e) { from = binAt(e); e.preventDefault(); });
    svg.addEventListener("pointerup", function (e) {
      if (from < 0) return;
      var to = binAt(e), lo = Math.min(from, to), hi = Math.max(from, to), bins = [];
      from = -1;
      for (var k = lo; k <= hi; k++) bins.push(k);
      var only = bins.length === 1 && brush[bins[0]] && Object.keys(brush).length === 1;
      self.brush[f.id] = {};
      self.toggle(f.id, bins, !only);
    });
    return wrap;
  };

  // toggle brushes (on) or unbrushes the bins of facet id.
  Selector.prototype.toggle = function (id, bins, on) {
    var b = this.brush[id] || (this.brush[id] = {});
    bins.forEach(function (k) { if (on) b[k] = true; else delete b[k]; });
    this.refresh();
  };

  // drawList lists the selection's first LIST_MAX points.
  Selector.prototype.drawList = function (m, count) {
    this.list.replaceChildren();
    this.csv.disabled = !m || !count;
    if (!m) {
      this.summary.textContent = "No selection: choose Lasso or Box and draw on the map, or click a histogram's bars.";
      return;
    }
    this.summary.textContent = count + " point" + (count === 1 ? "" : "s") + " selected" + (count > LIST_MAX ? " (the first " + LIST_MAX + " listed; the CSV has them all)" : "");
    var shown = 0, idx = [], details = [];
    for (var i = 0; i < this.n && shown < LIST_MAX; i++) {
      if (!m[i]) continue;
      shown++;
      var it = this.src.item(i), li = el("li", { "data-testid": "selection-item" });
      var b = el("button", { type: "button", class: "link", title: "select this point" }, it.title);
      b.addEventListener("click", this.src.pick.bind(null, i));
      var d = el("span", { class: "muted" }, it.detail);
      li.append(b, " ", d);
      this.list.appendChild(li);
      idx.push(i);
      details.push(d);
    }
    this.box.setAttribute("data-listed", String(shown));
    // A map whose points' details live on the server fills them in (listed).
    if (this.src.listed) this.src.listed(idx, details);
  };

  // csvText is the selection as CSV: a header, then a row a point.
  Selector.prototype.csvText = function () {
    var cols = this.src.columns, m = this.mask, lines = [cols.map(function (c) { return csvField(c.name); }).join(",")];
    for (var i = 0; i < this.n; i++) {
      if (m && m[i]) lines.push(cols.map(function (c) { return csvField(c.value(i)); }).join(","));
    }
    return lines.join("\r\n") + "\r\n";
  };

  Selector.prototype.download = function () {
    var url = URL.createObjectURL(new Blob([this.csvText()], { type: "text/csv" })), a = document.createElement("a");
    a.download = "taglens-selection.csv";
    a.href = url;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  };

  // later runs make once the browser is idle after the map's first frame
  // (within 300 ms): the analysis of a large map does not delay its drawing.
  function later(make) {
    if (window.requestIdleCallback) window.requestIdleCallback(make, { timeout: 300 });
    else setTimeout(make, 50);
  }

  // termMap binds a term map: points from termmap.js's mapPoints (data: the
  // map's JSON), pick(i) selects point i as a click does.
  function termMap(box, chart, data, points, pick) {
    later(function () { bindTermMap(box, chart, data, points, pick); });
  }
  function bindTermMap(box, chart, data, points, pick) {
    var n = points.length, x = data.x, y = data.y;
    var facets = [
      catFacet("tags", "Tag frequency (the documents' tags)", function (i) { return points[i].tags || []; }, n),
      numFacet("doclen", "Document length (tags)", points.map(function (p) { return (p.tags || []).length; }), false),
    ];
    if (data.topics > 0) facets.push(catFacet("topic", "LDA topic", function (i) { return window.taglens.topicName(points[i].topic); }, n));
    facets.push(catFacet("oov", "OOV or in vocabulary", function (i) { var k = points[i].kind; return k === "oov" || k === "oov-avg" ? "OOV" : "in vocabulary"; }, n));
    if (new Set(points.map(function (p) { return p.corpus; })).size > 1) {
      facets.push(catFacet("corpus", "Corpus", function (i) { return points[i].corpus; }, n));
    }
    return new Selector(box, chart, {
      x: x, y: y, facets: facets, pick: pick,
      tags: function (i) { return points[i].tags || []; },
      columns: [
        { name: "term", value: function (i) { return points[i].term; } },
        { name: "kind", value: function (i) { return points[i].kind; } },
        { name: "document", value: function (i) { return points[i].doc_id; } },
        { name: "corpus", value: function (i) { return points[i].corpus; } },
        { name: "lda_topic", value: function (i) { return points[i].topic >= 0 ? points[i].topic + 1 : ""; } },
        { name: "tags", value: function (i) { return (points[i].tags || []).join(" "); } },
        { name: "x", value: function (i) { return x[i]; } },
        { name: "y", value: function (i) { return y[i]; } },
      ],
      item: function (i) { var p = points[i]; return { title: p.term + " · " + p.doc_id, detail: (p.tags || []).join(", ") }; },
    });
  }

  // spaceMap binds a whole-space map (data: its JSON; the points from
  // oovFrom on are tags outside the vocabulary); pick(i) selects term i.
  function spaceMap(box, chart, data, oovFrom, pick) {
    later(function () { bindSpaceMap(box, chart, data, oovFrom, pick); });
  }
  function bindSpaceMap(box, chart, data, oovFrom, pick) {
    var n = data.terms.length, T = window.taglens;
    var topicOf = function (i) { return data.topic && data.topic[i] !== undefined ? data.topic[i] : -1; };
    var facets = [numFacet("docs", "Tag frequency (documents, log scale)", data.docs.slice(0, n), true)];
    if (data.topics > 0) facets.push(catFacet("topic", "LDA topic", function (i) { return T.topicName(topicOf(i)); }, n));
    if (oovFrom < n) facets.push(catFacet("oov", "OOV or in vocabulary", function (i) { return i >= oovFrom ? "OOV" : "in vocabulary"; }, n));
    return new Selector(box, chart, {
      x: data.x, y: data.y, facets: facets, pick: pick,
      // A point is one term: a region's label is its terms with the most documents.
      tags: function (i) { return [data.terms[i]]; },
      weight: function (i) { return Math.max(1, data.docs[i]); },
      columns: [
        { name: "term", value: function (i) { return data.terms[i]; } },
        { name: "documents", value: function (i) { return data.docs[i]; } },
        { name: "oov", value: function (i) { return i >= oovFrom ? 1 : 0; } },
        { name: "lda_topic", value: function (i) { return topicOf(i) >= 0 ? topicOf(i) + 1 : ""; } },
        { name: "x", value: function (i) { return data.x[i]; } },
        { name: "y", value: function (i) { return data.y[i]; } },
      ],
      item: function (i) { return { title: data.terms[i], detail: data.docs[i] + " documents" + (i >= oovFrom ? " · OOV" : "") }; },
    });
  }

  window.taglensSelect = { termMap: termMap, spaceMap: spaceMap, Selector: Selector, inside: inside, csvField: csvField,
    numFacet: numFacet, codeFacet: codeFacet, later: later };
})();
