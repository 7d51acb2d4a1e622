// taglens's map of every instance of a model: 10^5-10^6 (document, term)
// points read as binary columns (server/instbin.go: a JSON header, then
// little-endian Float32 x, y, Uint32 term and document, Int16 topic; typed
// arrays over the response's buffer, no parse per point), drawn by the WebGL
// layer (glmap.js) coloured by term or by the document's LDA topic, with the
// density layer, region labels and selections of select.js. The box keeps
// data-points (the instances drawn) and data-render-ms (from the data's
// arrival to the layer's first frame drawn) for the tests and the benchmark.
(function () {
  "use strict";

  var T = window.taglens;
  var SIZES = { float32: 4, uint32: 4, int16: 2 };
  var TYPES = { float32: Float32Array, uint32: Uint32Array, int16: Int16Array };

  // parse reads the binary form: the header and a typed array a column
  // (views of buf; the browsers taglens runs in are little-endian).
  function parse(buf) {
    var dv = new DataView(buf);
    var magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
    if (magic !== "TLI1") throw new Error("not an instance map (" + magic + ")");
    var hl = dv.getUint32(4, true);
    var hdr = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, hl)));
    var n = hdr.n, off = 8 + hl, cols = {};
    hdr.columns.forEach(function (c) {
      cols[c.name] = new TYPES[c.type](buf, off, n);
      off += SIZES[c.type] * n;
    });
    return { hdr: hdr, n: n, x: cols.x, y: cols.y, term: cols.term, doc: cols.doc, topic: cols.topic };
  }

  // packed is a colour as the layer's RGBA bytes read as one little-endian
  // Uint32.
  function packed(hex, alpha) {
    var c = window.taglensGL.rgb(hex);
    return ((alpha << 24) | (c[2] << 16) | (c[1] << 8) | c[0]) >>> 0;
  }

  function instancesExplorer(box) {
    var url = box.getAttribute("data-instances-url");
    var chartID = box.getAttribute("data-instances-chart");
    var modelURL = url.replace(/\/instances\?.*$/, "");
    var status = document.getElementById("instances-status");
    var key = document.getElementById("instances-key");
    var side = document.getElementById("instances-selected");
    var colour = document.querySelector("[data-testid=instances-color]");
    var chart = T.charts[chartID];
    var d = null, layer = null, rank = null;

    function load() {
      T.loadMap(url, status, "the map of every instance", function (buf) {
        var t0 = performance.now();
        try { d = parse(buf); } catch (e) { status.textContent = String(e.message || e); return; }
        show(t0);
      }, true);
    }

    // byRank orders the terms by their training documents, most first.
    function byRank() {
      var h = d.hdr, order = h.terms.map(function (_, t) { return t; });
      order.sort(function (a, b) { return h.term_docs[b] - h.term_docs[a] || a - b; });
      rank = new Int32Array(h.terms.length);
      order.forEach(function (t, r) { rank[t] = r; });
      return order;
    }

    // colours fills the layer's colours: by term (hues a golden angle apart
    // in the order of the terms' documents) or by the document's topic.
    function colours() {
      var n = d.n, rgba = new Uint8Array(4 * n), out = new Uint32Array(rgba.buffer), alpha = n > 200000 ? 150 : 200, i;
      if (colour.value === "topic") {
        var tc = [];
        for (i = -1; i < Math.max(1, d.hdr.topics); i++) tc.push(packed(T.topicColor(i), alpha));
        for (i = 0; i < n; i++) out[i] = tc[d.topic[i] + 1];
      } else {
        var c = new Uint32Array(d.hdr.terms.length);
        for (i = 0; i < c.length; i++) c[i] = packed(T.topicColor(rank[i]), alpha);
        for (i = 0; i < n; i++) out[i] = c[d.term[i]];
      }
      return rgba;
    }

    // keyOf shows the colouring's key: the 12 terms with the most
    // documents, or the topics.
    function keyOf(order) {
      key.replaceChildren();
      var items = colour.value === "topic" ?
        Array.from({ length: d.hdr.topics }, function (_, k) { return [T.topicName(k), T.topicColor(k)]; }) :
        order.slice(0, 12).map(function (t) { return [d.hdr.terms[t], T.topicColor(rank[t])]; });
      items.forEach(function (it) {
        var s = document.createElement("span"), i = document.createElement("i");
        s.className = "key-item";
        i.style.background = it[1];
        s.append(i, it[0]);
        key.appendChild(s);
      });
      key.hidden = false;
    }

    function show(t0) {
      var h = d.hdr, order = byRank();
      box.setAttribute("data-points", String(d.n));
      box.setAttribute("data-renderer", "webgl");
      if (!window.taglensGL || !window.taglensGL.supported()) {
        status.textContent = "This browser gives no WebGL: the map of every instance needs it.";
        box.setAttribute("data-renderer", "none");
        return;
      }
      chart.setOption(Object.assign(T.glExtent(d.x, d.y), {
        legend: { show: false },
        tooltip: { trigger: "item", formatter: function (p) {
          var i = p.value[2];
          return "<b>" + T.esc(h.terms[d.term[i]]) + "</b><br/>training document #" + d.doc[i] + " · LDA " + T.topicName(d.topic[i]);
        } },
        series: [window.taglensGL.hoverSeries()],
      }), { replaceMerge: ["series"] });
      chart.on("finished", function once() {
        chart.off("finished", once);
        if (layer) layer.finish();
        box.setAttribute("data-render-ms", String(Math.round(performance.now() - t0)));
      });
      layer = window.taglensGL.attach(chart, chartID, d.x, d.y, pick);
      layer.pointPx = d.n > 200000 ? 2 : d.n > 20000 ? 3 : 4;
      layer.setColors(colours());
      layer.sync();
      chart.getZr().on("click", function (e) { if (!e.target && layer) layer.click(e); });
      chart.on("click", function (p) { if (p.value) pick(p.value[2]); });
      keyOf(order);
      colour.addEventListener("change", function () { layer.setColors(colours()); keyOf(order); });
      status.textContent = d.n + " instances of " + h.terms.length + " terms in " + h.documents + " training documents" +
        (h.stride > 1 ? " (every " + h.stride + "th document)" : "") + " · " + h.variant + ", placed in the whole-space t-SNE map" +
        (h.perplexity ? " (perplexity " + h.perplexity + ", " + h.iterations + " iterations, seed " + h.seed + ")" : "");
      box.setAttribute("data-ready", "true");
      if (window.taglensSelect) window.taglensSelect.later(bindSelect);
    }

    // docs asks the server for training documents (their "doc" values).
    function docs(idx) {
      return fetch(modelURL + "/instances/docs?doc=" + idx.join(",")).then(function (r) { return r.json(); })
        .then(function (b) { var m = {}; (b.docs || []).forEach(function (x) { m[x.index] = x; }); return m; });
    }

    function pick(i) {
      side.textContent = d.hdr.terms[d.term[i]] + " in training document #" + d.doc[i] + "…";
      docs([d.doc[i]]).then(function (m) {
        var x = m[d.doc[i]];
        if (!x) return;
        side.innerHTML = "<b>" + T.esc(d.hdr.terms[d.term[i]]) + "</b> in document <b>" + T.esc(x.id) + "</b><br/>" +
          "<span class='muted'>" + T.esc(x.tags.join(", ")) + " · LDA " + T.esc(T.topicName(x.topic)) + "</span>";
      });
    }

    // bindSelect adds the density, the region labels and the selections.
    function bindSelect() {
      var S = window.taglensSelect, h = d.hdr, n = d.n;
      var freq = new Float64Array(n);
      for (var i = 0; i < n; i++) freq[i] = h.term_docs[d.term[i]];
      var facets = [
        S.codeFacet("term", "Term", function (i) { return d.term[i]; }, function (t) { return h.terms[t]; }, n),
        S.numFacet("docs", "Term frequency (documents, log scale)", freq, true),
      ];
      if (h.topics > 0) facets.push(S.codeFacet("topic", "LDA topic (of the document)", function (i) { return d.topic[i]; }, T.topicName, n));
      var one = h.terms.map(function (t) { return [t]; });
      new S.Selector(box, chart, {
        x: d.x, y: d.y, facets: facets, pick: pick,
        // A region's label is its most characteristic terms.
        tags: function (i) { return one[d.term[i]]; },
        columns: [
          { name: "term", value: function (i) { return h.terms[d.term[i]]; } },
          { name: "document_index", value: function (i) { return d.doc[i]; } },
          { name: "lda_topic", value: function (i) { return d.topic[i] >= 0 ? d.topic[i] + 1 : ""; } },
          { name: "x", value: function (i) { return d.x[i]; } },
          { name: "y", value: function (i) { return d.y[i]; } },
        ],
        item: function (i) { return { title: h.terms[d.term[i]] + " · document #" + d.doc[i], detail: "…" }; },
        // The listed instances' documents, in one request.
        listed: function (idx, details) {
          if (!idx.length) return;
          var want = Array.from(new Set(idx.map(function (i) { return d.doc[i]; })));
          docs(want).then(function (m) {
            idx.forEach(function (i, k) {
              var x = m[d.doc[i]];
              if (x) details[k].textContent = "document " + x.id + ": " + x.tags.join(", ");
              details[k].setAttribute("data-doc-id", x ? x.id : "");
            });
            box.setAttribute("data-docs-listed", String(idx.length));
          });
        },
      });
    }

    load();
  }

  T.instancesExplorer = instancesExplorer;
  T.parseInstances = parse;
})();
