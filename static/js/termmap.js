// taglens's term maps: the explorer's map of the instances of one term or
// several in their documents (with overlaid documents' terms), and the map
// of an OOV term in a document's context (the paper's Figure 7). A click on
// a point rings it and lists its neighbours in its document's context. Split
// from app.js, whose shared helpers (window.taglens) it uses; app.js's boot
// calls termExplorer for each map on the page.
(function () {
  "use strict";
  var T = window.taglens;

  // Point kinds: instances of the term map, overlays, and the context map
  // (Figure 7: positive ■ blue, negative ◆ red, OOV ★ green / ▲ centroid).
  var STAR = "path://M50,0L61,35L98,35L68,57L79,91L50,70L21,91L32,57L2,35L39,35Z";
  var KIND_SYMBOL = { instance: "circle", accompany: "diamond", oov: STAR, "oov-avg": "triangle", negative: "diamond", positive: "rect" };
  var KIND_GROUP = { accompany: "accompanying terms", oov: "OOV term", "oov-avg": "OOV term (centroid)", negative: "negative instances", positive: "positive instances" };
  var KIND_COLOR = { positive: "#2563eb", negative: "#dc2626", oov: "#16a34a", "oov-avg": "#65a30d" };
  // Colour by OOV: the out-of-vocabulary points in one bright colour, every
  // in-vocabulary point in one grey (the symbols still tell the kinds apart).
  var OOV_KINDS = { oov: true, "oov-avg": true };

  // mapPoints rebuilds the points of a map from its columnar JSON: parallel
  // arrays of coordinates and small ids into the documents, terms, kinds and
  // tags, which come once each.
  function mapPoints(data) {
    var tags = data.docs.map(function (d) { return d.tags.map(function (t) { return data.tags[t]; }); });
    var pts = new Array(data.x.length);
    for (var i = 0; i < pts.length; i++) {
      var d = data.docs[data.doc[i]];
      pts[i] = { x: data.x[i], y: data.y[i], term: data.terms[data.term_of[i]], kind: data.kinds[data.kind[i]],
        cluster: data.cluster[i], doc_id: d.id, corpus: d.corpus, tags: tags[data.doc[i]], topic: d.topic === undefined ? -1 : d.topic };
    }
    return pts;
  }

  // postExplorer opens the explorer for the parameters q (URLSearchParams)
  // by a POST with the page's CSRF token: the server starts computing that
  // map and shows its page (a GET would only read it).
  function postExplorer(q) {
    var form = document.createElement("form");
    form.method = "post";
    form.action = "/explorer";
    form.hidden = true;
    var add = function (k, v) {
      var i = document.createElement("input");
      i.type = "hidden";
      i.name = k;
      i.value = v;
      form.appendChild(i);
    };
    var tok = document.querySelector("input[name=csrf_token]");
    if (tok) add("csrf_token", tok.value);
    q.forEach(function (v, k) { add(k, v); });
    document.body.appendChild(form);
    form.submit();
  }

  // instanceSeries groups the points of a term map into series: by sense
  // cluster, corpus or LDA topic for the instances, by kind for the rest; or,
  // coloured by OOV, the OOV points apart from the in-vocabulary ones. With gl
  // (the palette's colours), the instance series are empty (their points are
  // the WebGL layer's: rgba gets their colours, in the series' colour) and the
  // pointer's series comes last. It returns {series, rgba}.
  function instanceSeries(points, colorBy, gl) {
    var groups = {};
    var order = [];
    var colorOf = {}; // a group's own colour (topics, OOV), else the palette's
    // A map of several terms' instances names each sense cluster by its term
    // (each term's instances are clustered on their own).
    var instTerms = {}, nTerms = 0;
    points.forEach(function (p) { if (p.kind === "instance" && !instTerms[p.term]) { instTerms[p.term] = true; nTerms++; } });
    points.forEach(function (p, i) {
      var g, kindName = KIND_GROUP[p.kind] || p.kind;
      if (colorBy === "oov") {
        if (OOV_KINDS[p.kind]) { g = kindName; colorOf[g] = T.oovColor; }
        else { g = p.kind === "instance" ? "in vocabulary" : "in vocabulary: " + kindName; colorOf[g] = T.ivColor; }
      } else if (p.kind !== "instance") g = kindName;
      else if (colorBy === "corpus") g = p.corpus;
      else if (colorBy === "term") g = p.term;
      else if (colorBy === "topic") { g = T.topicName(p.topic); colorOf[g] = T.topicColor(p.topic); }
      else g = (nTerms > 1 ? p.term + " · " : "") + "sense cluster " + (p.cluster + 1);
      if (!groups[g]) { groups[g] = []; order.push(g); }
      groups[g].push([p.x, p.y, i]);
    });
    // Numbers in order: "topic 2" before "topic 10".
    order.sort(function (a, b) { return a.localeCompare(b, "en", { numeric: true }); });
    var large = points.length > 3000;
    var label = function (p) { var q = points[p.value[2]]; return q.kind === "oov-avg" ? q.term + " (centroid)" : q.term; };
    var rgba = gl ? new Uint8Array(4 * points.length) : null;
    var series = order.map(function (g, si) {
      var kind = groups[g].length ? points[groups[g][0][2]].kind : "instance";
      var s = {
        name: g, type: "scatter", data: groups[g], symbol: KIND_SYMBOL[kind] || "circle",
        symbolSize: kind === "instance" ? (large ? 4 : 7) : (kind === "negative" ? 8 : (kind === "oov" ? 18 : 11)),
        large: large, largeThreshold: 3000, progressive: 0,
        emphasis: { focus: "none", scale: 1.6 },
        label: (kind === "instance" || kind === "negative") ? { show: false } : { show: true, position: "right", formatter: label, fontSize: 11 },
        labelLayout: { hideOverlap: true },
        itemStyle: KIND_COLOR[kind] ? { opacity: kind === "negative" ? 0.7 : 1, color: KIND_COLOR[kind] } : { opacity: kind === "instance" ? 0.75 : 1 },
      };
      if (colorOf[g]) s.itemStyle.color = colorOf[g];
      if (gl && kind === "instance") {
        s.itemStyle.color = colorOf[g] || gl[si % gl.length];
        glColors(rgba, groups[g], s.itemStyle.color, 191);
        s.data = [];
      }
      return s;
    });
    if (gl) series.push(window.taglensGL.hoverSeries());
    return { series: series, rgba: rgba, groups: groups, order: order };
  }

  // glColors colours the points pts ([x, y, i]) of a WebGL layer.
  function glColors(rgba, pts, color, alpha) {
    var c = window.taglensGL.rgb(color);
    pts.forEach(function (p) { var i = 4 * p[2]; rgba[i] = c[0]; rgba[i + 1] = c[1]; rgba[i + 2] = c[2]; rgba[i + 3] = alpha; });
  }

  // lastClick holds instanceClicked's arguments of the point shown, so that
  // another distance lists its neighbours again.
  var lastClick = null;

  // instanceClicked shows a clicked point of a term map: its document, a link
  // to overlay the document's terms, and the term's neighbours in its context,
  // each a button: a neighbour drawn on the map in the same document is
  // selected in turn (pick), another opens the map of its term.
  function instanceClicked(pt, params, modelURL, pick) {
    lastClick = [pt, params, modelURL, pick];
    var sel = document.getElementById("selected");
    sel.innerHTML = "<b>" + T.esc(pt.term) + "</b> in document <code>" + T.esc(pt.doc_id) + "</code> (" + T.esc(pt.corpus) + ")<br/>" +
      "<span class='muted'>" + (pt.tags || []).map(T.esc).join(", ") + "</span><br/>";
    var a = document.createElement("a");
    a.href = "#";
    a.textContent = "Overlay this document's terms";
    a.setAttribute("data-testid", "overlay-doc");
    a.addEventListener("click", function (e) {
      e.preventDefault();
      var docs = document.querySelector("input[name=docs]");
      var cur = docs.value ? docs.value.split(",").map(function (s) { return s.trim(); }) : [];
      if (cur.indexOf(pt.doc_id) < 0) cur.push(pt.doc_id);
      docs.value = cur.join(",");
      docs.form.submit();
    });
    var nb = document.getElementById("neighbours");
    if (pt.kind !== "instance" && pt.kind !== "accompany" && pt.kind !== "positive") {
      nb.textContent = "Neighbours are listed for the document's own tags.";
      return; // a negative or OOV instance is not a tag of the document's context
    }
    sel.appendChild(a);
    nb.textContent = "…";
    var q = "?term=" + encodeURIComponent(pt.term) + "&doc=" + encodeURIComponent(pt.doc_id) +
      "&variant=" + encodeURIComponent(params.get("variant") || "") + "&k=10";
    var metric = document.getElementById("neighbour-metric");
    if (metric && metric.value === "cosine") q += "&metric=cosine";
    if (metric && !metric.dataset.bound) {
      // Changing the distance lists the selected point's neighbours again.
      metric.dataset.bound = "1";
      metric.addEventListener("change", function () { if (lastClick) instanceClicked.apply(null, lastClick); });
    }
    var corp = (params.get("corpus") || "").split(",");
    if (corp.length === 1 && corp[0]) q += "&corpus=" + encodeURIComponent(corp[0]);
    fetch(modelURL + "/neighbours" + q).then(function (r) { return r.json(); }).then(function (res) {
      nb.replaceChildren();
      if (!res.neighbours) { nb.textContent = res.error || "no neighbours"; return; }
      res.neighbours.forEach(function (n) {
        var li = T.neighbourItem(n, function () {
          if (pick(n.term, pt.doc_id, pt.corpus)) return;
          // The map of that term, in the same model, corpora and colouring.
          var q = new URLSearchParams(params), page = new URL(window.location.href).searchParams;
          q.set("term", n.term);
          q.delete("doc");
          q.set("model", modelURL.replace(/^.*\/models\//, ""));
          if (page.get("color")) q.set("color", page.get("color"));
          postExplorer(q);
        });
        if (n.in_doc) li.className = "hit";
        nb.appendChild(li);
      });
    });
  }

  // legendColors are the WebGL layer's colours with the instance groups the
  // legend hides (selected[name] false) hidden.
  function legendColors(out, selected) {
    var rgba = out.rgba.slice();
    out.order.forEach(function (g) {
      if (selected[g] === false) out.groups[g].forEach(function (p) { rgba[4 * p[2] + 3] = 0; });
    });
    return rgba;
  }

  // termsText names the terms of a term map: “guitar”, or terms “guitar”,
  // “drums” for a map of several (data.terms holds overlaid terms too, so
  // the instances' terms are read from data.term).
  function termsText(data) {
    var ts = data.term.indexOf(",") >= 0 && data.terms.indexOf(data.term) < 0 ? data.term.split(",") : [data.term];
    return (ts.length > 1 ? "terms " : "term ") + ts.map(function (t) { return "“" + t + "”"; }).join(", ");
  }

  function explorer(box) {
    var chartID = box.getAttribute("data-map-chart");
    var url = box.getAttribute("data-map-url");
    var colorBy = box.getAttribute("data-color") || "cluster";
    var status = document.getElementById("map-status");
    var chart = T.charts[chartID];
    var params = new URL(url, window.location.href).searchParams;
    var modelURL = url.replace(/\/(context-)?map\?.*$/, "");
    var points = [];

    function load() {
      T.loadMap(url, status, "the t-SNE map", function (data) {
        T.drawTimed(box, chartID, data.x.length, function (gl) { draw(data, gl); });
      });
    }

    // The clicked point, ringed on the map (a series of its own, added by
    // the first click, out of the legend).
    var MARK = { id: "selected-point", name: "selected point", type: "scatter", data: [], symbol: "circle", symbolSize: 18, z: 20,
      silent: true, itemStyle: { color: "transparent", borderColor: "#c92a2a", borderWidth: 2.5 }, label: { show: false }, tooltip: { show: false } };
    function select(i) {
      var pt = points[i];
      if (!pt) return;
      chart.setOption({ series: [Object.assign({}, MARK, { data: [[pt.x, pt.y, i]] })] });
      box.setAttribute("data-selected", String(i));
      instanceClicked(pt, params, modelURL, pick);
    }
    // pick selects the point of term in document doc of corpus, if the map
    // has one; it reports whether it had.
    function pick(term, doc, corpus) {
      for (var i = 0; i < points.length; i++) {
        var p = points[i];
        if (p.term === term && p.doc_id === doc && p.corpus === corpus && p.kind !== "negative") { select(i); return true; }
      }
      return false;
    }

    var layer = null;
    function draw(data, gl) {
      points = mapPoints(data);
      var out = instanceSeries(points, colorBy, gl && chart.getOption().color);
      // The legend lists the groups, not the selection's ring.
      chart.setOption(Object.assign({ legend: { data: out.order } }, gl ? T.glExtent(data.x, data.y) : {}));
      chart.setOption({
        // confine and the wrapping width are in the chart's option (server/charts.go mapTooltip).
        tooltip: {
          trigger: "item",
          formatter: function (p) {
            var pt = points[p.value[2]];
            if (!pt) return "";
            var all = pt.tags || [];
            var tags = all.slice(0, 20).map(T.esc).join(", ") + (all.length > 20 ? " … and " + (all.length - 20) + " more" : "");
            return "<b>" + T.esc(pt.term) + "</b> <small>(" + T.esc(pt.kind) + ")</small><br/>document " + T.esc(pt.doc_id) +
              " · " + T.esc(pt.corpus) + " · LDA " + T.topicName(pt.topic) + "<br/><span style='color:#555'>" + tags + "</span>";
          },
        },
        series: out.series,
      }, { replaceMerge: ["series"] });
      T.fitLegend(chart);
      if (gl) {
        layer = T.glLayer(chart, chartID, data.x, data.y, out.rgba, select);
        chart.on("legendselectchanged", function (e) { layer.setColors(legendColors(out, e.selected)); });
      }
      var ctxDoc = params.get("doc");
      status.textContent = points.length + " points · t-SNE" + (data.perplexity ? " with perplexity " + data.perplexity + ", " + data.iterations + " iterations," : "") +
        " KL " + (data.kl || 0).toFixed(3) + " · " +
        (ctxDoc ? "OOV term “" + data.term + "” in the context of document " + ctxDoc : termsText(data)) + " (" + data.variant + ")" +
        (colorBy === "topic" ? " · coloured by each document's LDA topic (" + (data.topics || "?") + " topics)" : "") +
        (colorBy === "oov" ? " · coloured by OOV: " + points.filter(function (p) { return OOV_KINDS[p.kind]; }).length + " OOV points" : "");
      status.setAttribute("data-points", String(points.length));
      // Density, region labels, selections and histograms (select.js).
      if (window.taglensSelect) window.taglensSelect.termMap(box, chart, data, points, select);
      box.setAttribute("data-ready", "true");
    }

    // The tooltip hides on a click (a tap) anywhere outside the chart or on
    // the chart's empty space: on a touch screen nothing else hides it.
    var chartEl = document.getElementById(chartID);
    document.addEventListener("click", function (e) {
      if (!chartEl.contains(e.target)) chart.dispatchAction({ type: "hideTip" });
    });
    chart.getZr().on("click", function (e) {
      if (!e.target && !(layer && layer.click(e))) chart.dispatchAction({ type: "hideTip" });
    });
    chart.on("click", function (p) {
      if (p.value && points[p.value[2]]) select(p.value[2]);
    });
    load();
  }

  T.termExplorer = explorer;
})();
