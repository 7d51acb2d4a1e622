// taglens page behaviour: chart initialisation from go-echarts option JSON, live
// job progress over server-sent events, tag autocomplete, drag-and-drop upload,
// and the explorer map. No framework; htmx handles the forms.
(function () {
  "use strict";
  var charts = {};
  window.taglensCharts = charts;

  function initCharts(root) {
    root.querySelectorAll("script[data-chart]").forEach(function (s) {
      var id = s.getAttribute("data-chart");
      var el = document.getElementById(id);
      if (!el || charts[id]) return;
      var chart = echarts.init(el, null, { renderer: "canvas" });
      var opt = JSON.parse(s.textContent);
      if (Array.isArray(opt.series)) opt.series = opt.series.map(function (se) { return se.type === "boxplot" ? errorBarSeries(se) : se; });
      chart.setOption(opt);
      charts[id] = chart;
    });
  }
  // errorBarSeries redraws a degenerate boxplot series [lo, m, m, m, hi] (see
  // server/charts.go errorBars) as whiskers centred on each category.
  function errorBarSeries(se) {
    var color = (se.itemStyle && se.itemStyle.color) || "#333";
    var data = (se.data || []).map(function (d, i) { var v = d.value || d; return [i, v[0], v[4]]; });
    return {
      type: "custom", name: se.name, data: data, z: 10, silent: true, tooltip: { show: false },
      encode: { x: 0, y: [1, 2] },
      renderItem: function (params, api) {
        var x = api.value(0), lo = api.coord([x, api.value(1)]), hi = api.coord([x, api.value(2)]);
        var w = Math.max(3, api.size([1, 0])[0] * 0.08);
        var style = { stroke: color, lineWidth: 1.5 };
        return { type: "group", children: [
          { type: "line", shape: { x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1] }, style: style },
          { type: "line", shape: { x1: lo[0] - w, y1: lo[1], x2: lo[0] + w, y2: lo[1] }, style: style },
          { type: "line", shape: { x1: hi[0] - w, y1: hi[1], x2: hi[0] + w, y2: hi[1] }, style: style },
        ] };
      },
    };
  }

  window.addEventListener("resize", function () {
    Object.keys(charts).forEach(function (k) { charts[k].resize(); });
  });

  function fmtETA(s) {
    if (!s || s <= 0) return "";
    if (s < 60) return "about " + Math.round(s) + " s left";
    if (s < 3600) return "about " + Math.round(s / 60) + " min left";
    return "about " + (s / 3600).toFixed(1) + " h left";
  }

  // Training chart series order (server/charts.go trainingChart): 0 loss stage 1,
  // 1 loss stage 2, 2 P@2 CE, 3 P@2 Siamese-CE.
  function addPoint(chartID, pt) {
    var chart = charts[chartID];
    if (!chart || !pt) return;
    var opt = chart.getOption();
    var series = opt.series.map(function (s) { return { data: (s.data || []).slice() }; });
    var x = 1;
    series.forEach(function (s, i) { if (i < 2) x += s.data.length; });
    var loss = pt.stage === "stage2" ? 1 : 0;
    series[loss].data.push([x, pt.loss]);
    if (pt.valid_p2 !== undefined && pt.valid_p2 !== null) {
      series[pt.stage === "stage2" ? 3 : 2].data.push([x, pt.valid_p2]);
    }
    chart.setOption({ series: series });
  }

  function watchJob(el) {
    var id = el.getAttribute("data-job");
    var state = el.getAttribute("data-state");
    var cancel = el.querySelector("[data-role=cancel]");
    if (cancel) {
      cancel.addEventListener("click", function () {
        cancel.disabled = true;
        fetch("/api/jobs/" + encodeURIComponent(id), { method: "DELETE" });
      });
    }
    if (state !== "queued" && state !== "running") return;
    var es = new EventSource("/api/jobs/" + encodeURIComponent(id) + "/events");
    var set = function (role, text) {
      var n = el.querySelector("[data-role=" + role + "]");
      if (n) n.textContent = text;
    };
    es.addEventListener("progress", function (ev) {
      var j = JSON.parse(ev.data);
      el.setAttribute("data-state", j.state);
      el.className = "job job-" + j.state;
      set("state", j.state);
      set("stage", j.stage);
      set("message", j.message);
      set("eta", j.state === "running" ? fmtETA(j.eta_seconds) : "");
      var bar = el.querySelector("[data-role=bar]");
      if (bar) bar.style.width = (100 * j.progress).toFixed(1) + "%";
      if (j.point) addPoint(el.getAttribute("data-chart"), j.point);
    });
    es.addEventListener("end", function (ev) {
      es.close();
      var j = JSON.parse(ev.data);
      if (cancel) cancel.remove();
      var done = el.getAttribute("data-done-url");
      if (j.state === "done" && done) {
        setTimeout(function () { window.location.href = done; }, 600);
      }
    });
    es.onerror = function () {
      // The browser reconnects by itself; a finished job closes the stream.
    };
  }

  // Autocomplete: fills the <datalist> of inputs with data-autocomplete from the
  // tags API (prefix matches first, most used first). With data-multi, completes
  // the last comma-separated tag.
  function autocomplete(input) {
    var url = input.getAttribute("data-autocomplete");
    var list = document.getElementById(input.getAttribute("list"));
    var multi = input.hasAttribute("data-multi");
    var timer = null, seq = 0;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var v = input.value, head = "", q = v;
        if (multi) {
          var i = v.lastIndexOf(",");
          head = i >= 0 ? v.slice(0, i + 1) + " " : "";
          q = v.slice(i + 1).trim();
        }
        if (q.length === 0) return;
        var mine = ++seq;
        fetch(url + "?limit=15&q=" + encodeURIComponent(q)).then(function (r) { return r.json(); }).then(function (tags) {
          if (mine !== seq || !Array.isArray(tags)) return;
          list.replaceChildren();
          tags.forEach(function (t) {
            var o = document.createElement("option");
            o.value = head + t.tag;
            o.label = t.count + " docs";
            list.appendChild(o);
          });
        });
      }, 120);
    });
  }

  function dropzone(label) {
    var input = label.querySelector("input[type=file]");
    var text = label.querySelector(".drop-text");
    ["dragenter", "dragover"].forEach(function (t) {
      label.addEventListener(t, function (e) { e.preventDefault(); label.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (t) {
      label.addEventListener(t, function (e) { e.preventDefault(); label.classList.remove("over"); });
    });
    label.addEventListener("drop", function (e) {
      if (e.dataTransfer && e.dataTransfer.files.length) {
        input.files = e.dataTransfer.files;
        input.dispatchEvent(new Event("change"));
      }
    });
    input.addEventListener("change", function () {
      if (input.files.length) text.textContent = input.files[0].name + " (" + Math.ceil(input.files[0].size / 1024) + " KiB)";
    });
  }

  // Buttons with hx-delete/hx-post and data-redirect/data-reload.
  document.addEventListener("htmx:afterRequest", function (e) {
    var el = e.detail.elt;
    if (!e.detail.successful) return;
    if (el.hasAttribute("data-redirect")) window.location.href = el.getAttribute("data-redirect");
    else if (el.hasAttribute("data-reload")) window.location.reload();
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var el = e.detail.elt;
    if (el.hasAttribute("data-redirect") || el.hasAttribute("data-reload")) e.detail.shouldSwap = false;
  });

  // ---- Explorer map ----
  // Point kinds: instances of the term map, overlays, and the context map
  // (Figure 7: positive ■ blue, negative ◆ red, OOV ★ green / ▲ centroid).
  var STAR = "path://M50,0L61,35L98,35L68,57L79,91L50,70L21,91L32,57L2,35L39,35Z";
  var KIND_SYMBOL = { instance: "circle", accompany: "diamond", oov: STAR, "oov-avg": "triangle", negative: "diamond", positive: "rect" };
  var KIND_GROUP = { accompany: "accompanying terms", oov: "OOV term", "oov-avg": "OOV term (centroid)", negative: "negative instances", positive: "positive instances" };
  var KIND_COLOR = { positive: "#2563eb", negative: "#dc2626", oov: "#16a34a", "oov-avg": "#65a30d" };

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // mapPoints rebuilds the points of a map from its columnar JSON: parallel
  // arrays of coordinates and small ids into the documents, terms, kinds and
  // tags, which come once each.
  function mapPoints(data) {
    var tags = data.docs.map(function (d) { return d.tags.map(function (t) { return data.tags[t]; }); });
    var pts = new Array(data.x.length);
    for (var i = 0; i < pts.length; i++) {
      var d = data.docs[data.doc[i]];
      pts[i] = { x: data.x[i], y: data.y[i], term: data.terms[data.term_of[i]], kind: data.kinds[data.kind[i]],
        cluster: data.cluster[i], doc_id: d.id, corpus: d.corpus, tags: tags[data.doc[i]] };
    }
    return pts;
  }

  // neighbourItem is the list item of a neighbour: its term and distance.
  function neighbourItem(n) {
    var li = document.createElement("li");
    li.textContent = n.term + " ";
    var d = document.createElement("span");
    d.className = "dist";
    d.textContent = n.distance.toFixed(3);
    li.appendChild(d);
    return li;
  }

  // loadMap fetches a map that a background job computes: on 202 it follows
  // the job's progress in status and fetches again when it is done; on 200 it
  // hands the body to draw; otherwise it shows the error.
  function loadMap(url, status, what, draw) {
    fetch(url).then(function (r) {
      return r.json().then(function (body) { return { status: r.status, body: body }; });
    }).then(function (res) {
      if (res.status === 202) {
        status.textContent = "Computing " + what + " in the background…";
        var es = new EventSource("/api/jobs/" + encodeURIComponent(res.body.job_id) + "/events");
        es.addEventListener("progress", function (ev) {
          var j = JSON.parse(ev.data);
          status.textContent = "Computing " + what + ": " + Math.round(100 * j.progress) + "% — " + j.message;
        });
        es.addEventListener("end", function (ev) {
          es.close();
          var j = JSON.parse(ev.data);
          if (j.state === "done") loadMap(url, status, what, draw);
          else status.textContent = "The map job " + j.state + ": " + j.message;
        });
        return;
      }
      if (res.status !== 200) {
        status.textContent = res.body.error || ("error " + res.status);
        status.classList.add("alert", "alert-error");
        return;
      }
      draw(res.body);
    });
  }

  function explorer(box) {
    var chartID = box.getAttribute("data-map-chart");
    var url = box.getAttribute("data-map-url");
    var colorBy = box.getAttribute("data-color") || "cluster";
    var status = document.getElementById("map-status");
    var chart = charts[chartID];
    var params = new URL(url, window.location.href).searchParams;
    var modelURL = url.replace(/\/(context-)?map\?.*$/, "");
    var points = [];

    // The time from the map's data to its drawn chart ("finished"), in ms, is
    // kept on the box (data-render-ms) for the rendering benchmark.
    function load() {
      loadMap(url, status, "the t-SNE map", function (data) {
        var t0 = performance.now();
        chart.on("finished", function once() {
          chart.off("finished", once);
          box.setAttribute("data-render-ms", String(Math.round(performance.now() - t0)));
        });
        draw(data);
      });
    }

    function draw(data) {
      points = mapPoints(data);
      var groups = {};
      var order = [];
      points.forEach(function (p, i) {
        var g;
        if (p.kind !== "instance") g = KIND_GROUP[p.kind] || p.kind;
        else if (colorBy === "corpus") g = p.corpus;
        else g = "sense cluster " + (p.cluster + 1);
        if (!groups[g]) { groups[g] = []; order.push(g); }
        groups[g].push([p.x, p.y, i]);
      });
      order.sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; });
      var large = points.length > 3000;
      var series = order.map(function (g) {
        var kind = groups[g].length ? points[groups[g][0][2]].kind : "instance";
        return {
          name: g, type: "scatter", data: groups[g], symbol: KIND_SYMBOL[kind] || "circle",
          symbolSize: kind === "instance" ? (large ? 4 : 7) : (kind === "negative" ? 8 : (kind === "oov" ? 18 : 11)),
          large: large, largeThreshold: 3000, progressive: 0,
          emphasis: { focus: "none", scale: 1.6 },
          label: (kind === "instance" || kind === "negative") ? { show: false } : { show: true, position: "right", formatter: function (p) { var q = points[p.value[2]]; return q.kind === "oov-avg" ? q.term + " (centroid)" : q.term; }, fontSize: 11 },
          labelLayout: { hideOverlap: true },
          itemStyle: KIND_COLOR[kind] ? { opacity: kind === "negative" ? 0.7 : 1, color: KIND_COLOR[kind] } : { opacity: kind === "instance" ? 0.75 : 1 },
        };
      });
      chart.setOption({
        // confine and the wrapping width are in the chart's option (server/charts.go mapTooltip).
        tooltip: {
          trigger: "item",
          formatter: function (p) {
            var pt = points[p.value[2]];
            if (!pt) return "";
            var all = pt.tags || [];
            var tags = all.slice(0, 20).map(esc).join(", ") + (all.length > 20 ? " … and " + (all.length - 20) + " more" : "");
            return "<b>" + esc(pt.term) + "</b> <small>(" + esc(pt.kind) + ")</small><br/>document " + esc(pt.doc_id) +
              " · " + esc(pt.corpus) + "<br/><span style='color:#555'>" + tags + "</span>";
          },
        },
        series: series,
      }, { replaceMerge: ["series"] });
      var ctxDoc = params.get("doc");
      status.textContent = points.length + " points · KL " + (data.kl || 0).toFixed(3) + " · " +
        (ctxDoc ? "OOV term “" + data.term + "” in the context of document " + ctxDoc : "term “" + data.term + "”") + " (" + data.variant + ")";
      status.setAttribute("data-points", String(points.length));
      box.setAttribute("data-ready", "true");
    }

    // The tooltip hides on a click (a tap) anywhere outside the chart or on
    // the chart's empty space: on a touch screen nothing else hides it.
    var chartEl = document.getElementById(chartID);
    document.addEventListener("click", function (e) {
      if (!chartEl.contains(e.target)) chart.dispatchAction({ type: "hideTip" });
    });
    chart.getZr().on("click", function (e) {
      if (!e.target) chart.dispatchAction({ type: "hideTip" });
    });

    chart.on("click", function (p) {
      var pt = points[p.value[2]];
      if (!pt) return;
      var sel = document.getElementById("selected");
      sel.innerHTML = "<b>" + esc(pt.term) + "</b> in document <code>" + esc(pt.doc_id) + "</code> (" + esc(pt.corpus) + ")<br/>" +
        "<span class='muted'>" + (pt.tags || []).map(esc).join(", ") + "</span><br/>";
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
      var corp = (params.get("corpus") || "").split(",");
      if (corp.length === 1 && corp[0]) q += "&corpus=" + encodeURIComponent(corp[0]);
      fetch(modelURL + "/neighbours" + q).then(function (r) { return r.json(); }).then(function (res) {
        nb.replaceChildren();
        if (!res.neighbours) { nb.textContent = res.error || "no neighbours"; return; }
        res.neighbours.forEach(function (n) {
          var li = neighbourItem(n);
          if (n.in_doc) li.className = "hit";
          nb.appendChild(li);
        });
      });
    });
    load();
  }

  // The whole-space map: one point per vocabulary term (its CE averaged over
  // its training documents). A search box lights up the matching terms in the
  // map without reloading (a substring, or /a regular expression/); clicking a
  // term lists and lights up its k nearest terms. The URL keeps the search,
  // the selection, k, the colouring, the isolation and the zoom, so a view can
  // be shared.
  function spaceExplorer(box) {
    var chartID = box.getAttribute("data-space-chart");
    var url = box.getAttribute("data-space-url");
    var modelURL = url.replace(/\/space\?.*$/, "");
    var variant = new URL(url, window.location.href).searchParams.get("variant") || "";
    var status = document.getElementById("space-status");
    var search = document.querySelector("[data-testid=space-search]");
    var kIn = document.querySelector("[data-testid=space-k]");
    var colorIn = document.querySelector("[data-testid=space-color]");
    var isolateIn = document.querySelector("[data-testid=space-isolate]");
    var selEl = document.getElementById("space-selected");
    var nb = document.getElementById("space-neighbours");
    var chart = charts[chartID];
    var data = null, matches = null, selected = -1, near = [], index = {};
    var mostUsed = []; // the 25 terms with the most training documents, labelled in every view
    var maxDocs = 1;   // the most training documents of a term (the colour scale's top)
    var page = new URL(window.location.href);

    // The time from the map's data to its drawn chart, as for the term map.
    function load() {
      loadMap(url, status, "the map of the whole space", function (body) {
        var t0 = performance.now();
        chart.on("finished", function once() {
          chart.off("finished", once);
          box.setAttribute("data-render-ms", String(Math.round(performance.now() - t0)));
        });
        show(body);
      });
    }

    function show(body) {
      data = body;
      data.terms.forEach(function (t, i) { index[t] = i; });
      mostUsed = data.terms.map(function (_, i) { return i; })
        .sort(function (a, b) { return data.docs[b] - data.docs[a] || a - b; }).slice(0, 25);
      maxDocs = Math.max(1, data.docs[mostUsed[0]] || 1);
      // The shared view: read everything before filter() rewrites the URL.
      var q = page.searchParams.get("q");
      var s = page.searchParams.get("sel");
      var k = parseInt(page.searchParams.get("k") || "", 10);
      if (q) search.value = q;
      if (k > 0) kIn.value = String(k);
      if (page.searchParams.get("color") === "docs") colorIn.value = "docs";
      isolateIn.checked = page.searchParams.get("isolate") === "1";
      filter();
      if (s && index[s] !== undefined) select(index[s]); else draw();
      restoreZoom();
    }

    // matcher returns a predicate for the search text: /re/ is a regular
    // expression, anything else a case-insensitive substring.
    function matcher(text) {
      var m = /^\/(.*)\/([a-z]*)$/.exec(text);
      if (m) {
        try { var re = new RegExp(m[1], m[2].indexOf("i") >= 0 ? m[2] : m[2] + "i"); return function (t) { return re.test(t); }; }
        catch (e) { return null; }
      }
      var low = text.toLowerCase();
      return function (t) { return t.toLowerCase().indexOf(low) >= 0; };
    }

    function filter() {
      var text = search.value.trim();
      matches = null;
      if (text) {
        var f = matcher(text);
        matches = {};
        if (f) data.terms.forEach(function (t, i) { if (f(t)) matches[i] = true; });
      }
      keepURL();
    }

    function keepURL() {
      var q = search.value.trim();
      if (q) page.searchParams.set("q", q); else page.searchParams.delete("q");
      if (selected >= 0) page.searchParams.set("sel", data.terms[selected]); else page.searchParams.delete("sel");
      page.searchParams.set("k", kIn.value);
      if (colorIn.value === "docs") page.searchParams.set("color", "docs"); else page.searchParams.delete("color");
      if (isolateIn.checked) page.searchParams.set("isolate", "1"); else page.searchParams.delete("isolate");
      history.replaceState(null, "", page.pathname + "?" + page.searchParams.toString());
    }

    function draw() {
      var n = data.terms.length;
      // Labels for the most used terms, the matches, the selection and its neighbours.
      var labelled = {};
      mostUsed.forEach(function (i) { labelled[i] = true; });
      var nearSet = {};
      near.forEach(function (i) { nearSet[i] = true; labelled[i] = true; });
      if (selected >= 0) labelled[selected] = true;
      var nMatch = 0;
      var rest = [], hit = [], close = [], self = [];
      for (var i = 0; i < n; i++) {
        var pt = [data.x[i], data.y[i], i];
        if (i === selected) self.push(pt);
        else if (nearSet[i]) close.push(pt);
        else if (matches && matches[i]) { hit.push(pt); labelled[i] = true; nMatch++; }
        else rest.push(pt);
      }
      var isolated = isolateIn.checked && (matches !== null || selected >= 0);
      if (isolated) rest = [];
      var byColor = colorIn.value === "docs";
      if (matches && matches[selected]) nMatch++;
      near.forEach(function (i) { if (matches && matches[i]) nMatch++; });
      var large = n > 3000;
      var dim = (matches !== null || selected >= 0) && !byColor;
      var label = function (p) { return labelled[p.value[2]] ? data.terms[p.value[2]] : ""; };
      var base = { type: "scatter", large: large, largeThreshold: 3000, progressive: 0, emphasis: { focus: "none", scale: 1.6 },
        labelLayout: { hideOverlap: true } };
      function series(name, pts, size, color, show) {
        return Object.assign({}, base, { name: name, data: pts, symbolSize: size,
          itemStyle: color ? { color: color } : { opacity: dim ? 0.25 : 0.8 },
          label: { show: show, position: "right", fontSize: 11, formatter: label } });
      }
      // Colour by tag frequency: the log of the training documents holding a
      // term, on the "terms" series (the highlighted series keep their colours).
      var visualMap = byColor ? [{ type: "continuous", seriesIndex: 0, dimension: 3, min: 0, max: Math.log10(maxDocs),
        text: ["many documents", "few"], calculable: false, orient: "horizontal", left: "center", bottom: 0,
        inRange: { color: ["#cfe3ff", "#4c6ef5", "#1b2a6b"] }, formatter: function (v) { return String(Math.round(Math.pow(10, v))); } }] : [];
      if (byColor) rest.forEach(function (p) { p.push(Math.log10(Math.max(1, data.docs[p[2]]))); });
      chart.setOption({
        visualMap: visualMap,
        tooltip: { trigger: "item", formatter: function (p) {
          var i = p.value[2];
          return "<b>" + esc(data.terms[i]) + "</b><br/>" + data.docs[i] + " training documents";
        } },
        legend: { data: ["terms", "matches", "neighbours", "selected"] },
        series: [
          series("terms", rest, large ? 4 : 6, dim ? "#c8ccd3" : null, !dim && !large),
          series("matches", hit, 9, "#d9822b", true),
          series("neighbours", close, 11, "#2b8a3e", true),
          series("selected", self, 16, "#c92a2a", true),
        ],
      }, { replaceMerge: ["series", "visualMap"] });
      var parts = [(isolated ? "showing " + (hit.length + close.length + self.length) + " of " : "") + n + " terms (" + data.variant + ", " + data.projection + ")"];
      if (matches) parts.push(nMatch + " match" + (nMatch === 1 ? "" : "es") + " of “" + search.value.trim() + "”");
      if (selected >= 0) parts.push("selected “" + data.terms[selected] + "” and its " + near.length + " nearest");
      status.textContent = parts.join(" · ");
      status.setAttribute("data-matches", matches ? String(nMatch) : "");
      box.setAttribute("data-ready", "true");
    }

    function select(i) {
      selected = i;
      keepURL();
      selEl.innerHTML = "<b>" + esc(data.terms[i]) + "</b> <span class='muted'>(" + data.docs[i] + " training documents)</span>";
      nb.textContent = "…";
      var q = "?term=" + encodeURIComponent(data.terms[i]) + "&variant=" + encodeURIComponent(variant) + "&k=" + encodeURIComponent(kIn.value);
      fetch(modelURL + "/space/neighbours" + q).then(function (r) { return r.json(); }).then(function (res) {
        nb.replaceChildren();
        near = [];
        if (!res.neighbours) { nb.textContent = res.error || "no neighbours"; draw(); return; }
        res.neighbours.forEach(function (x) {
          if (index[x.term] !== undefined) near.push(index[x.term]);
          nb.appendChild(neighbourItem(x));
        });
        box.setAttribute("data-neighbours", String(near.length));
        draw();
      });
    }

    var timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { if (data) { filter(); draw(); } }, 150);
    });
    kIn.addEventListener("change", function () { if (data && selected >= 0) select(selected); else if (data) keepURL(); });
    [colorIn, isolateIn].forEach(function (el) { el.addEventListener("change", function () { if (data) { keepURL(); draw(); } }); });
    chart.on("click", function (p) { if (data && p.value) select(p.value[2]); });
    // The zoom (x and y ranges, in percent of the data) is part of the shared view.
    chart.on("datazoom", function () {
      var dz = chart.getOption().dataZoom || [];
      var r = function (z) { return z ? Math.round(z.start * 10) / 10 + "," + Math.round(z.end * 10) / 10 : ""; };
      if (dz.length >= 2) { page.searchParams.set("zx", r(dz[0])); page.searchParams.set("zy", r(dz[1])); }
      history.replaceState(null, "", page.pathname + "?" + page.searchParams.toString());
    });
    function restoreZoom() {
      [["zx", 0], ["zy", 1]].forEach(function (z) {
        var v = (page.searchParams.get(z[0]) || "").split(",").map(Number);
        if (v.length === 2 && v.every(isFinite)) chart.dispatchAction({ type: "dataZoom", dataZoomIndex: z[1], start: v[0], end: v[1] });
      });
    }
    load();
  }

  // Switching the model of the explorer or the priming page reloads the page for
  // that model alone: the term, documents and corpora chosen for the previous
  // model (and its tag suggestions) may not exist in the new one's vocabulary.
  function modelSwitch(sel) {
    sel.addEventListener("change", function () {
      var form = sel.form;
      var q = new URLSearchParams();
      q.set("model", sel.value);
      var variant = form && form.querySelector("[name=variant]");
      if (variant) q.set("variant", variant.value);
      window.location.href = (form ? form.getAttribute("action") : window.location.pathname) + "?" + q.toString();
    });
  }

  function boot(root) {
    initCharts(root);
    root.querySelectorAll("[data-job]").forEach(watchJob);
    root.querySelectorAll("input[data-autocomplete]").forEach(autocomplete);
    root.querySelectorAll("label.drop").forEach(dropzone);
    root.querySelectorAll("[data-map-url]").forEach(explorer);
    root.querySelectorAll("[data-space-url]").forEach(spaceExplorer);
    root.querySelectorAll("select[data-model-switch]").forEach(modelSwitch);
  }
  document.addEventListener("DOMContentLoaded", function () { boot(document); });
  document.addEventListener("htmx:load", function (e) {
    if (e.detail.elt !== document.body) {
      initCharts(e.detail.elt);
      e.detail.elt.querySelectorAll && e.detail.elt.querySelectorAll("[data-job]").forEach(watchJob);
    }
  });
})();
