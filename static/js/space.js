// taglens's whole-space map: one point per vocabulary term (its CE averaged
// over its training documents), then the corpus's tags outside the vocabulary
// placed in it (from data.oov_from; each its feature-based CE averaged over
// the documents holding it). A search box lights up the matching terms in
// the map without reloading (a substring, or /a regular expression/); clicking
// a term lists and lights up its k nearest terms. The URL keeps the search,
// the selection, k, the colouring, the isolation and the zoom, so a view can
// be shared. On a map of many terms the plain points can be drawn by the
// WebGL layer (glmap.js; app.js: drawTimed) and the highlighted and labelled
// terms stay canvas series above it.
(function () {
  "use strict";
  var T = window.taglens;

  // matcher returns {test: a predicate} for the search text, /re/ a regular
  // expression and anything else a case-insensitive substring, or {error:
  // why} for a regular expression that does not parse.
  function matcher(text) {
    var m = /^\/(.*)\/([a-z]*)$/.exec(text);
    if (m) {
      try { var re = new RegExp(m[1], m[2].indexOf("i") >= 0 ? m[2] : m[2] + "i"); return { test: function (t) { return re.test(t); } }; }
      catch (e) { return { error: e.message }; }
    }
    var low = text.toLowerCase();
    return { test: function (t) { return t.toLowerCase().indexOf(low) >= 0; } };
  }

  // spaceSeries returns the map's series, always in this order (the tests and
  // the colour scale rely on it): 0 terms, 1 matches, 2 neighbours,
  // 3 selected, 4 the most used terms' labels (and with gl, 5 the pointer's
  // point over the WebGL layer). v: the view (data, matches, selected, near,
  // mostUsed, byColor, byTopic, isolate, gl: the palette or null). It also returns the
  // counts the status line shows and, with gl, the WebGL layer's colours
  // (the terms series is then empty: its points are the layer's).
  function spaceSeries(v) {
    var data = v.data, n = data.terms.length;
    // Labels for the most used terms, the matches, the selection and its neighbours.
    var labelled = {}, nearSet = {};
    v.mostUsed.forEach(function (i) { labelled[i] = true; });
    v.near.forEach(function (i) { nearSet[i] = true; labelled[i] = true; });
    if (v.selected >= 0) labelled[v.selected] = true;
    var rest = [], hit = [], close = [], self = [];
    for (var i = 0; i < n; i++) {
      var pt = [data.x[i], data.y[i], i];
      if (i === v.selected) self.push(pt);
      else if (nearSet[i]) close.push(pt);
      else if (v.matches && v.matches[i]) { hit.push(pt); labelled[i] = true; }
      else rest.push(pt);
    }
    var isolated = v.isolate && (v.matches !== null || v.selected >= 0);
    if (isolated) rest = [];
    var large = n > 3000;
    var coloured = v.byColor || v.byTopic || v.byOOV;
    var dim = (v.matches !== null || v.selected >= 0) && !coloured;
    // On a large map the terms series has no labels (too many to place): the
    // most used terms get theirs from a small series of rings above it.
    var top = [];
    if (large && !dim && !isolated) {
      v.mostUsed.forEach(function (i) { if (i !== v.selected && !nearSet[i] && !(v.matches && v.matches[i])) top.push([data.x[i], data.y[i], i]); });
    }
    var label = function (p) { return labelled[p.value[2]] ? data.terms[p.value[2]] : ""; };
    var base = { type: "scatter", large: large, largeThreshold: 3000, progressive: 0, emphasis: { focus: "none", scale: 1.6 },
      labelLayout: { hideOverlap: true } };
    function series(name, pts, size, style, show) {
      return Object.assign({}, base, { name: name, data: pts, symbolSize: size, itemStyle: style,
        label: { show: show, position: "right", fontSize: 11, formatter: label } });
    }
    var rgba = v.gl ? termColors(v, rest, dim) : null;
    if (v.gl) rest = [];
    if (v.byColor) rest.forEach(function (p) { p.push(Math.log10(Math.max(1, data.docs[p[2]]))); });
    if (v.byTopic) rest.forEach(function (p) { p.push(topicOf(data, p[2])); });
    if (v.byOOV) rest.forEach(function (p) { p.push(p[2] >= v.oovFrom ? 1 : 0); });
    var terms = series("terms", rest, large ? 4 : 6, dim ? { color: "#c8ccd3" } : { opacity: 0.8 }, !dim && !large);
    if (v.gl && !dim) terms.itemStyle.color = v.gl[0];
    var out = {
      series: [
        terms,
        series("matches", hit, 9, mark("#d9822b", coloured), true),
        series("neighbours", close, 11, mark("#2b8a3e", coloured), true),
        series("selected", self, 16, mark("#c92a2a", coloured), true),
        series("most used", top, 7, { color: "transparent", borderColor: "#1f2937", borderWidth: 1 }, true),
      ],
      shown: hit.length + close.length + self.length, isolated: isolated, rgba: rgba,
      marks: [{ name: "matches", color: "#d9822b", n: hit.length }, { name: "neighbours", color: "#2b8a3e", n: close.length },
        { name: "selected", color: "#c92a2a", n: self.length }],
    };
    if (v.gl) out.series.push(window.taglensGL.hoverSeries());
    return out;
  }

  // mark is the style of a highlighted series: its colour, ringed in dark
  // among coloured terms (whose colours it may share).
  function mark(color, ringed) {
    return ringed ? { color: color, borderColor: "#111827", borderWidth: 1.5 } : { color: color };
  }

  var FREQ_COLORS = ["#cfe3ff", "#4c6ef5", "#1b2a6b"];
  // The colourings the URL keeps (color=…); "none" is its absence.
  var COLOURINGS = ["docs", "topic", "oov"];

  // topicOf is term i's LDA topic (-1: none, or a map without topics).
  function topicOf(data, i) { return data.topic && data.topic[i] !== undefined ? data.topic[i] : -1; }

  // termColors are the WebGL layer's colours of the plain terms pts ([x, y,
  // i]): grey when dimmed, by frequency with byColor (as colourScale), by LDA
  // topic with byTopic, outside or in the vocabulary with byOOV, else the
  // palette's first colour; the other terms are hidden.
  function termColors(v, pts, dim) {
    var rgba = new Uint8Array(4 * v.data.terms.length), G = window.taglensGL;
    var flat = G.rgb(dim ? "#c8ccd3" : v.gl[0]), ramp = G.ramp(FREQ_COLORS), top = Math.log10(v.maxDocs) || 1;
    var topicRGB = {}, oovRGB = G.rgb(T.oovColor), ivRGB = G.rgb(T.ivColor);
    var byTopic = function (i) {
      var k = topicOf(v.data, i);
      return topicRGB[k] || (topicRGB[k] = G.rgb(T.topicColor(k)));
    };
    pts.forEach(function (p) {
      var i = p[2], c = v.byColor ? ramp(Math.log10(Math.max(1, v.data.docs[i])) / top) : v.byTopic ? byTopic(i) :
        v.byOOV ? (i >= v.oovFrom ? oovRGB : ivRGB) : flat;
      rgba[4 * i] = c[0]; rgba[4 * i + 1] = c[1]; rgba[4 * i + 2] = c[2]; rgba[4 * i + 3] = dim ? 255 : 204;
    });
    return rgba;
  }

  // colourScale is the visual map colouring the terms series by the log of
  // the training documents holding a term (byColor), by LDA topic (topics:
  // their number) or outside/in the vocabulary (byOOV), the highlighted
  // series keeping their colours; none otherwise. It is hidden: colourKey
  // shows its key above the chart.
  function colourScale(byColor, maxDocs, topics, byOOV) {
    if (byOOV) {
      return [{ type: "piecewise", seriesIndex: 0, dimension: 3, show: false,
        pieces: [{ value: 0, label: "in the vocabulary", color: T.ivColor }, { value: 1, label: "outside the vocabulary", color: T.oovColor }] }];
    }
    if (topics) {
      // Its key is the page's (colourKey).
      var pieces = [{ value: -1, label: T.topicName(-1), color: T.topicColor(-1) }];
      for (var k = 0; k < topics; k++) pieces.push({ value: k, label: T.topicName(k), color: T.topicColor(k) });
      return [{ type: "piecewise", seriesIndex: 0, dimension: 3, pieces: pieces, show: false }];
    }
    if (!byColor) return [];
    return [{ type: "continuous", seriesIndex: 0, dimension: 3, min: 0, max: Math.log10(maxDocs), show: false,
      inRange: { color: FREQ_COLORS } }];
  }

  // colourKey fills el with the key of the colouring, a line that wraps on a
  // narrow screen (the chart's own would sit on its zoom slider): by topic, a
  // swatch, the topic and its number of terms for each topic that has terms;
  // by frequency, the colour ramp from 1 to maxDocs training documents (on a
  // log scale); by OOV, the two colours and their numbers of tags (oovFrom:
  // the first tag outside the vocabulary); then the highlighted terms shown
  // (marks: matches, neighbours, selected), ringed as on the map. It is then
  // the map's one legend (the chart's is hidden: its "terms" swatch had no
  // term's colour); empty and hidden without a colouring.
  function colourKey(el, data, byTopic, byColor, maxDocs, byOOV, oovFrom, marks) {
    el.replaceChildren();
    el.hidden = !byTopic && !byColor && !byOOV;
    if (el.hidden) return;
    marks.forEach(function (m) {
      if (!m.n) return;
      var item = document.createElement("span"), sw = document.createElement("i");
      item.className = "key-mark";
      item.setAttribute("data-key", m.name);
      sw.style.background = m.color;
      item.append(sw, m.name + " (" + m.n + ")");
      el.appendChild(item);
    });
    // swatch adds a key item: a colour swatch and its text, attr=value on it.
    function swatch(attr, value, color, text) {
      var item = document.createElement("span"), sw = document.createElement("i");
      item.className = "key-item";
      item.setAttribute(attr, value);
      sw.style.background = color;
      item.appendChild(sw);
      item.appendChild(document.createTextNode(text));
      el.appendChild(item);
    }
    if (byOOV) {
      swatch("data-key", "oov", T.oovColor, "outside the vocabulary (" + (data.terms.length - oovFrom) + ")");
      swatch("data-key", "iv", T.ivColor, "in the vocabulary (" + oovFrom + ")");
      return;
    }
    if (byColor) {
      var ramp = document.createElement("i");
      ramp.className = "key-ramp";
      ramp.style.background = "linear-gradient(to right, " + FREQ_COLORS.join(", ") + ")";
      var item = document.createElement("span");
      item.className = "key-item";
      item.append("1 training document ", ramp, " " + maxDocs + " (log scale)");
      el.appendChild(item);
      return;
    }
    if (!byTopic) return;
    var count = {};
    data.terms.forEach(function (_, i) { var k = topicOf(data, i); count[k] = (count[k] || 0) + 1; });
    Object.keys(count).map(Number).sort(function (a, b) { return a - b; }).forEach(function (k) {
      swatch("data-topic", String(k), T.topicColor(k), T.topicName(k) + " (" + count[k] + ")");
    });
  }

  // controls binds the map's inputs: the search (debounced), k and the distance, the colouring
  // and the isolation. ui: the inputs; on: the explorer's callbacks.
  function controls(ui, on) {
    var timer = null;
    ui.search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { if (on.ready()) { on.filter(); on.draw(); } }, 150);
    });
    [ui.k, ui.metric].forEach(function (el) { el.addEventListener("change", function () { if (on.ready()) on.k(); }); });
    [ui.color, ui.isolate].forEach(function (el) { el.addEventListener("change", function () { if (on.ready()) { on.keepURL(); on.draw(); } }); });
  }

  function spaceExplorer(box) {
    var chartID = box.getAttribute("data-space-chart");
    var url = box.getAttribute("data-space-url");
    var modelURL = url.replace(/\/space\?.*$/, "");
    var variant = new URL(url, window.location.href).searchParams.get("variant") || "";
    var status = document.getElementById("space-status");
    var key = document.getElementById("space-key");
    var ui = { search: document.querySelector("[data-testid=space-search]"), k: document.querySelector("[data-testid=space-k]"),
      color: document.querySelector("[data-testid=space-color]"), isolate: document.querySelector("[data-testid=space-isolate]"),
      metric: document.querySelector("[data-testid=space-metric]") };
    var selEl = document.getElementById("space-selected");
    var nb = document.getElementById("space-neighbours");
    var chart = T.charts[chartID];
    var data = null, matches = null, selected = -1, near = [], index = {}, gl = false;
    var badSearch = ""; // why the search, a regular expression, does not parse
    var mostUsed = []; // the 25 terms with the most training documents, labelled in every view
    var maxDocs = 1;   // the most training documents of a term (the colour scale's top)
    var oovFrom = 0;   // the first tag outside the vocabulary (the number of points if none)
    var page = new URL(window.location.href);

    function load() {
      T.loadMap(url, status, "the map of the whole space", function (body) {
        T.drawTimed(box, chartID, body.terms.length, function (g) { gl = g; show(body); });
      });
    }

    function show(body) {
      data = body;
      data.terms.forEach(function (t, i) { index[t] = i; });
      oovFrom = data.oov_from > 0 ? data.oov_from : data.terms.length;
      mostUsed = data.terms.slice(0, oovFrom).map(function (_, i) { return i; })
        .sort(function (a, b) { return data.docs[b] - data.docs[a] || a - b; }).slice(0, 25);
      maxDocs = Math.max(1, data.docs[mostUsed[0]] || 1);
      if (gl) chart.setOption(T.glExtent(data.x, data.y));
      // The shared view: read everything before filter() rewrites the URL.
      var q = page.searchParams.get("q");
      var s = page.searchParams.get("sel");
      var k = parseInt(page.searchParams.get("k") || "", 10);
      if (q) ui.search.value = q;
      if (k > 0) ui.k.value = String(k);
      if (page.searchParams.get("metric") === "cosine") ui.metric.value = "cosine";
      var col = page.searchParams.get("color");
      if (COLOURINGS.indexOf(col) >= 0) ui.color.value = col;
      ui.isolate.checked = page.searchParams.get("isolate") === "1";
      filter();
      // Density, region labels, selections and histograms (select.js).
      if (window.taglensSelect) window.taglensSelect.spaceMap(box, chart, data, oovFrom, function (i) { select(i); });
      if (s && index[s] !== undefined) select(index[s], true); else draw();
      restoreZoom();
    }

    // docsText says what point i averages over.
    function docsText(i) {
      if (i < oovFrom) return data.docs[i] + " training documents";
      return "outside the vocabulary · " + data.docs[i] + " document" + (data.docs[i] === 1 ? "" : "s") + " of the corpus";
    }

    // filter finds the terms the search matches; a regular expression that
    // does not parse matches nothing and says why (badSearch) in the status
    // line and on the search box.
    function filter() {
      var text = ui.search.value.trim();
      matches = null;
      badSearch = "";
      if (text) {
        var f = matcher(text);
        matches = {};
        if (f.error) badSearch = f.error;
        else data.terms.forEach(function (t, i) { if (f.test(t)) matches[i] = true; });
      }
      ui.search.setCustomValidity(badSearch ? "not a valid regular expression: " + badSearch : "");
      ui.search.setAttribute("aria-invalid", badSearch ? "true" : "false");
      keepURL();
    }

    function keepURL() {
      var q = ui.search.value.trim();
      if (q) page.searchParams.set("q", q); else page.searchParams.delete("q");
      if (selected >= 0) page.searchParams.set("sel", data.terms[selected]); else page.searchParams.delete("sel");
      page.searchParams.set("k", ui.k.value);
      if (ui.metric.value === "cosine") page.searchParams.set("metric", "cosine"); else page.searchParams.delete("metric");
      if (COLOURINGS.indexOf(ui.color.value) >= 0) page.searchParams.set("color", ui.color.value); else page.searchParams.delete("color");
      if (ui.isolate.checked) page.searchParams.set("isolate", "1"); else page.searchParams.delete("isolate");
      history.replaceState(null, "", page.pathname + "?" + page.searchParams.toString());
    }

    function draw() {
      var byColor = ui.color.value === "docs", byTopic = ui.color.value === "topic", byOOV = ui.color.value === "oov";
      var out = spaceSeries({ data: data, matches: matches, selected: selected, near: near, mostUsed: mostUsed,
        byColor: byColor, byTopic: byTopic, byOOV: byOOV, oovFrom: oovFrom, isolate: ui.isolate.checked,
        gl: gl ? chart.getOption().color : null, maxDocs: maxDocs });
      chart.setOption({
        visualMap: colourScale(byColor, maxDocs, byTopic ? (data.topics || 1) : 0, byOOV),
        tooltip: { trigger: "item", formatter: function (p) {
          var i = p.value[2];
          return "<b>" + T.esc(data.terms[i]) + "</b><br/>" + docsText(i) + (i < oovFrom ? " · LDA " + T.topicName(topicOf(data, i)) : "");
        } },
        // With a colouring the key above the map is its one legend.
        legend: { show: !(byColor || byTopic || byOOV), data: ["terms", "matches", "neighbours", "selected"] },
        series: out.series,
      }, { replaceMerge: ["series", "visualMap"] });
      T.fitLegend(chart);
      if (gl) glDraw(out.rgba);
      colourKey(key, data, byTopic, byColor, maxDocs, byOOV, oovFrom, out.marks);
      var nMatch = 0;
      if (matches) Object.keys(matches).forEach(function () { nMatch++; });
      var n = data.terms.length;
      var proj = data.projection === "tsne" ? "t-SNE" + (data.perplexity ? " with perplexity " + data.perplexity + ", " + data.iterations + " iterations" : "") : data.projection;
      var parts = [(out.isolated ? "showing " + out.shown + " of " : "") + n + " terms (" + data.variant + ", " + proj + ")"];
      if (byOOV) parts.push(oovFrom < n ? (n - oovFrom) + " of them tags of the corpus outside the vocabulary, placed by their feature-based CE" : "the corpus has no tag outside the vocabulary");
      if (byTopic) parts.push("coloured by each term's most probable LDA topic (" + (data.topics || "?") + " topics)");
      if (matches && !badSearch) parts.push(nMatch + " match" + (nMatch === 1 ? "" : "es") + " of “" + ui.search.value.trim() + "”");
      if (selected >= 0) parts.push("selected “" + data.terms[selected] + "” and its " + near.length + " nearest");
      status.textContent = parts.join(" · ");
      if (badSearch) {
        // The search's error first, in the error colour.
        var err = document.createElement("span");
        err.className = "search-error";
        err.setAttribute("data-testid", "search-error");
        err.textContent = "“" + ui.search.value.trim() + "” is not a valid regular expression (" + badSearch.replace(/^.*: /, "") + ")";
        status.prepend(err, " · ");
      }
      status.setAttribute("data-matches", badSearch ? "error" : matches ? String(nMatch) : "");
      box.setAttribute("data-ready", "true");
    }

    // select selects term i and lists its nearest terms: a click asks for
    // them by a POST, which computes the model's term centroids if need be;
    // restoring the URL's selection only reads them (a GET), and offers a
    // button to compute them when they are not.
    function select(i, restoring) {
      selected = i;
      keepURL();
      selEl.innerHTML = "<b>" + T.esc(data.terms[i]) + "</b> <span class='muted'>(" + T.esc(docsText(i)) + ")</span>";
      nb.textContent = "…";
      var q = { term: data.terms[i], variant: variant, k: ui.k.value, metric: ui.metric.value };
      var req = restoring ? fetch(modelURL + "/space/neighbours?" + new URLSearchParams(q).toString()) :
        fetch(modelURL + "/space/neighbours", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(q) });
      req.then(function (r) {
        return r.json().then(function (body) { return { status: r.status, body: body }; });
      }).then(function (r) {
        var res = r.body || {};
        nb.replaceChildren();
        near = [];
        if (r.status === 404 && res.state) {
          var b = document.createElement("button");
          b.type = "button";
          b.className = "link";
          b.textContent = "List the nearest terms";
          b.setAttribute("data-testid", "space-neighbours-compute");
          b.addEventListener("click", function () { select(i, false); });
          nb.appendChild(b);
          draw();
          return;
        }
        if (!res.neighbours) { nb.textContent = res.error || "no neighbours"; draw(); return; }
        res.neighbours.forEach(function (x) {
          var j = index[x.term];
          if (j !== undefined) near.push(j);
          // Clicking a neighbour selects it in turn.
          nb.appendChild(T.neighbourItem(x, j !== undefined ? function () { select(j); } : null));
        });
        box.setAttribute("data-neighbours", String(near.length));
        draw();
      });
    }

    controls(ui, { ready: function () { return !!data; }, filter: filter, draw: draw, keepURL: keepURL,
      k: function () { if (selected >= 0) select(selected); else keepURL(); } });
    // The zoom (x and y ranges, in percent of the data) is part of the shared view.
    // glDraw gives the WebGL layer (made on the first call) its colours.
    var layer = null, colours = null, termsShown = true;
    function glDraw(rgba) {
      colours = rgba;
      if (!layer) {
        layer = T.glLayer(chart, chartID, data.x, data.y, rgba, select);
        chart.on("legendselectchanged", function (e) {
          termsShown = e.selected.terms !== false;
          layer.setColors(termsShown ? colours : new Uint8Array(colours.length));
        });
      } else layer.setColors(termsShown ? rgba : new Uint8Array(rgba.length));
      layer.reset();
      layer.sync();
    }
    chart.getZr().on("click", function (e) { if (!e.target && layer) layer.click(e); });

    function attach(c) {
      chart = c;
      chart.on("click", function (p) { if (data && p.value) select(p.value[2]); });
      // The URL follows the zoom once a gesture pauses: reading the option and
      // rewriting the URL on every frame of a pan would cost frames.
      var zoomTimer = 0;
      chart.on("datazoom", function () {
        clearTimeout(zoomTimer);
        zoomTimer = setTimeout(keepZoom, 120);
      });
      function keepZoom() {
        var dz = chart.getOption().dataZoom || [];
        var r = function (z) { return z ? Math.round(z.start * 10) / 10 + "," + Math.round(z.end * 10) / 10 : ""; };
        if (dz.length >= 2) { page.searchParams.set("zx", r(dz[0])); page.searchParams.set("zy", r(dz[1])); }
        history.replaceState(null, "", page.pathname + "?" + page.searchParams.toString());
      }
    }
    // Both ranges are read first: the first dispatch rewrites the URL's zy.
    function restoreZoom() {
      var zs = ["zx", "zy"].map(function (k) { return (page.searchParams.get(k) || "").split(",").map(Number); });
      zs.forEach(function (v, i) {
        if (v.length === 2 && v.every(isFinite)) chart.dispatchAction({ type: "dataZoom", dataZoomIndex: i, start: v[0], end: v[1] });
      });
    }
    attach(chart);
    load();
  }

  T.spaceExplorer = spaceExplorer;
})();
