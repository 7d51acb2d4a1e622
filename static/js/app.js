// taglens page behaviour: chart initialisation from go-echarts option JSON, live
// job progress over server-sent events, tag autocomplete, drag-and-drop upload,
// and the explorer map. No framework; htmx handles the forms.
(function () {
  "use strict";
  var charts = {};
  window.taglensCharts = charts;

  // A chart's options are the JSON of the script element "chart-option-ID"
  // (views.ChartOptionID) beside its element ID.
  var OPTION_PREFIX = "chart-option-";
  function initCharts(root) {
    root.querySelectorAll('script[id^="' + OPTION_PREFIX + '"]').forEach(function (s) {
      var id = s.id.slice(OPTION_PREFIX.length);
      var el = document.getElementById(id);
      if (!el || charts[id]) return;
      charts[id] = makeChart(el, s.textContent);
    });
  }
  function makeChart(el, text) {
    var chart = echarts.init(el, null, { renderer: "canvas" });
    var opt = JSON.parse(text);
    (opt.series || []).forEach(function (se) { if (se.type === "custom" && !se.renderItem) se.renderItem = whiskers(se); });
    chart.setOption(opt);
    fitLegend(chart);
    return chart;
  }

  // NARROW is the chart width (CSS px) below which fitLegend lays a chart
  // out for a phone.
  var NARROW = 600;

  // fitLegend keeps a chart's legend off its axis names: the grid starts
  // below the legend (and below the y axis's name) and the chart grows by as
  // much, so the plot keeps its height. On a narrow chart (a phone's) the
  // legend also wraps in full instead of paging ("1/4"), the side margins
  // shrink to the labels (containLabel) and crowded category labels turn
  // further. Charts call it again when their legend changes (the maps).
  function fitLegend(chart) {
    var el = chart.getDom();
    if (!el.clientWidth) return;
    var narrow = el.clientWidth < NARROW;
    var opt = chart.getOption(), lg = opt.legend && opt.legend[0], grid = opt.grid && opt.grid[0];
    if (!grid) return;
    if (!el.hasAttribute("data-base-top")) {
      el.setAttribute("data-base-top", String(parseFloat(grid.top) || 60));
      el.setAttribute("data-base-height", String(el.clientHeight));
    }
    if (narrow && !el.hasAttribute("data-narrow")) {
      el.setAttribute("data-narrow", "true");
      var side = {};
      if (grid.containLabel) side = { left: Math.min(parseFloat(grid.left) || 12, 12), right: Math.min(parseFloat(grid.right) || 12, 12) };
      var x = opt.xAxis && opt.xAxis[0];
      var upd = { grid: side };
      if (x && x.type === "category" && x.axisLabel && x.axisLabel.rotate) upd.xAxis = { axisLabel: { rotate: 60 } };
      // A right axis's name ends at the axis instead of running off the edge.
      if ((opt.yAxis || []).length > 1) upd.yAxis = opt.yAxis.map(function (a) { return a.position === "right" && a.name ? { nameTextStyle: { align: "right" } } : {}; });
      chart.setOption(upd);
    }
    var baseTop = Number(el.getAttribute("data-base-top")), baseHeight = Number(el.getAttribute("data-base-height"));
    var top = baseTop;
    if (lg && lg.show !== false) {
      // Clear of the toolbox's icons on the right, where a chart has them.
      var tools = opt.toolbox && opt.toolbox[0] && opt.toolbox[0].show !== false;
      if (narrow && lg.type !== "plain") chart.setOption({ legend: { type: "plain", left: 4, right: tools ? 64 : 4 } });
      var view = chart.getViewOfComponentModel(chart.getModel().getComponent("legend", 0));
      var r = view && view.group.getBoundingRect();
      var named = (opt.yAxis || []).some(function (a) { return !!a.name; });
      if (r) top = Math.max(baseTop, Math.ceil(view.group.y + r.y + r.height) + (named ? 30 : 12));
    }
    chart.setOption({ grid: { top: top } });
    var h = baseHeight + (top - baseTop);
    if (Math.abs(el.clientHeight - h) > 1) {
      el.style.height = h + "px";
      chart.resize();
    }
  }
  // whiskers draws the items [category, low, high] of an error-bar series
  // (server/charts.go errorBars, built with its data, encoding and colour on
  // the server: only this function cannot travel as JSON) as a vertical line
  // centred on the category with a cap at each end.
  function whiskers(se) {
    var color = (se.itemStyle && se.itemStyle.color) || "#333";
    return function (params, api) {
      var x = api.value(0), lo = api.coord([x, api.value(1)]), hi = api.coord([x, api.value(2)]);
      var w = Math.max(3, api.size([1, 0])[0] * 0.08);
      var style = { stroke: color, lineWidth: 1.5 };
      return { type: "group", children: [
        { type: "line", shape: { x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1] }, style: style },
        { type: "line", shape: { x1: lo[0] - w, y1: lo[1], x2: lo[0] + w, y2: lo[1] }, style: style },
        { type: "line", shape: { x1: hi[0] - w, y1: hi[1], x2: hi[0] + w, y2: hi[1] }, style: style },
      ] };
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

  // The state a model (or another owner) reads once its job ends.
  var OWNER_STATE = { done: "ready" };

  // jobEnded shows, without a reload, how job id ended on what the page
  // shows of its owner: the state chips (data-job-chip) read the owner's new
  // state, and the controls kept for a job that did not finish
  // (data-job-ended, e.g. "Train again") appear.
  function jobEnded(id, state) {
    document.querySelectorAll("[data-job-chip]").forEach(function (chip) {
      if (chip.getAttribute("data-job-chip") !== id) return;
      var s = OWNER_STATE[state] || state;
      chip.textContent = s;
      chip.className = "state-" + s;
    });
    if (state === "done") return;
    document.querySelectorAll("[data-job-ended]").forEach(function (b) {
      if (b.getAttribute("data-job-ended") === id) b.hidden = false;
    });
  }

  // cancelButton asks to confirm before cancelling job id: the first click
  // turns the button into "Yes, cancel …" beside "Keep it running".
  function cancelButton(cancel, keep, id, what) {
    var label = cancel.textContent;
    var disarm = function () {
      cancel.removeAttribute("data-armed");
      cancel.textContent = label;
      cancel.classList.remove("btn-danger");
      if (keep) keep.hidden = true;
    };
    if (keep) keep.addEventListener("click", disarm);
    cancel.addEventListener("click", function () {
      if (!cancel.hasAttribute("data-armed")) {
        cancel.setAttribute("data-armed", "true");
        cancel.textContent = "Yes, cancel " + what;
        cancel.classList.add("btn-danger");
        if (keep) keep.hidden = false;
        return;
      }
      cancel.disabled = true;
      if (keep) keep.hidden = true;
      cancel.textContent = "Cancelling…";
      fetch("/api/jobs/" + encodeURIComponent(id), { method: "DELETE" });
    });
  }

  function watchJob(el) {
    var id = el.getAttribute("data-job");
    var state = el.getAttribute("data-state");
    var cancel = el.querySelector("[data-role=cancel]");
    var keep = el.querySelector("[data-role=keep]");
    if (cancel) cancelButton(cancel, keep, id, el.getAttribute("data-chart") === "curve" ? "the training" : "this job");
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
      set("stage", j.stage === j.state ? "" : j.stage);
      set("message", j.message);
      set("eta", j.state === "running" ? fmtETA(j.eta_seconds) : "");
      var bar = el.querySelector("[data-role=bar]");
      if (bar) bar.style.width = (100 * j.progress).toFixed(1) + "%";
      if (j.point) addPoint(el.getAttribute("data-chart"), j.point);
    });
    es.addEventListener("end", function (ev) {
      es.close();
      var j = JSON.parse(ev.data);
      if (cancel) cancel.parentNode.remove();
      el.setAttribute("data-state", j.state);
      el.className = "job job-" + j.state;
      set("state", j.state);
      set("message", j.message);
      set("eta", "");
      jobEnded(id, j.state);
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

  // ---- Maps of many points: WebGL ----
  // From GL_POINTS points on, a map's plain points are drawn by taglens's own
  // WebGL layer (glmap.js) under the ECharts chart, where the browser has
  // WebGL; the few highlighted and labelled points stay canvas series. ?gl=off
  // forces the canvas, ?gl=on the layer. See docs/quality-notes.md.
  var GL_POINTS = 5000;
  var GL_DEFAULT = true; // without ?gl: the layer wherever WebGL works (measured faster)
  var glParam = new URL(window.location.href).searchParams.get("gl");

  function wantGL(n) {
    if (n < GL_POINTS || !window.taglensGL || glParam === "off") return false;
    if (glParam !== "on" && !GL_DEFAULT) return false;
    return window.taglensGL.supported();
  }

  // glExtent fixes the axes to the points' extent (the canvas series hold only
  // the few highlighted points, so ECharts would not see the rest).
  function glExtent(x, y) {
    var f = function (v) {
      var lo = Infinity, hi = -Infinity;
      for (var i = 0; i < v.length; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i]; }
      var pad = (hi - lo) * 0.03 || 1;
      return { min: Math.floor(lo - pad), max: Math.ceil(hi + pad) };
    };
    return { xAxis: f(x), yAxis: f(y) };
  }

  // ---- Explorer map ----
  // Point kinds: instances of the term map, overlays, and the context map
  // (Figure 7: positive ■ blue, negative ◆ red, OOV ★ green / ▲ centroid).
  var STAR = "path://M50,0L61,35L98,35L68,57L79,91L50,70L21,91L32,57L2,35L39,35Z";
  var KIND_SYMBOL = { instance: "circle", accompany: "diamond", oov: STAR, "oov-avg": "triangle", negative: "diamond", positive: "rect" };
  var KIND_GROUP = { accompany: "accompanying terms", oov: "OOV term", "oov-avg": "OOV term (centroid)", negative: "negative instances", positive: "positive instances" };
  var KIND_COLOR = { positive: "#2563eb", negative: "#dc2626", oov: "#16a34a", "oov-avg": "#65a30d" };
  // Colour by OOV: the out-of-vocabulary points in one bright colour, every
  // in-vocabulary point in one grey (the symbols still tell the kinds apart).
  var OOV_KINDS = { oov: true, "oov-avg": true };
  var OOV_COLOR = "#e8590c", IV_COLOR = "#94a3b8";

  // topicColor is LDA topic k's colour: hues a golden angle apart, so that
  // topics with near numbers differ, at two lightnesses; grey for no topic
  // (-1: a document or term without a vocabulary term).
  function topicColor(k) {
    if (!(k >= 0)) return "#9ca3af";
    var h = (k * 137.508) % 360, s = 0.65, l = k % 2 ? 0.40 : 0.55;
    var f = function (n) {
      var a = s * Math.min(l, 1 - l), t = (n + h / 30) % 12;
      var c = l - a * Math.max(-1, Math.min(t - 3, 9 - t, 1));
      return ("0" + Math.round(255 * c).toString(16)).slice(-2);
    };
    return "#" + f(0) + f(8) + f(4);
  }
  function topicName(k) { return k >= 0 ? "topic " + (k + 1) : "no topic"; }

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
        cluster: data.cluster[i], doc_id: d.id, corpus: d.corpus, tags: tags[data.doc[i]], topic: d.topic === undefined ? -1 : d.topic };
    }
    return pts;
  }

  // neighbourItem is the list item of a neighbour: its term and distance;
  // with pick, the term is a button that calls pick (selects it).
  function neighbourItem(n, pick) {
    var li = document.createElement("li");
    if (pick) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "link";
      b.textContent = n.term;
      b.title = "select " + n.term;
      b.setAttribute("data-testid", "neighbour-pick");
      b.addEventListener("click", pick);
      li.append(b, " ");
    } else li.textContent = n.term + " ";
    var d = document.createElement("span");
    d.className = "dist";
    d.textContent = n.distance.toFixed(3);
    li.appendChild(d);
    return li;
  }

  // loadMap reads a map (a GET, which computes nothing) and hands it to
  // draw. A map not computed answers 404 with its state: while its job is
  // queued or running, status follows the job and the map is read again once
  // it is done; otherwise status says why there is no map and the page's
  // "Compute this map" button (a POST of the page's parameters) is shown.
  function loadMap(url, status, what, draw) {
    fetch(url).then(function (r) {
      return r.json().then(function (body) { return { status: r.status, body: body }; });
    }).then(function (res) {
      var b = res.body || {};
      if (res.status === 404 && (b.state === "queued" || b.state === "running")) {
        status.textContent = "Computing " + what + " in the background…";
        status.setAttribute("data-state", b.state);
        var es = new EventSource("/api/jobs/" + encodeURIComponent(b.job_id) + "/events");
        es.addEventListener("progress", function (ev) {
          var j = JSON.parse(ev.data);
          // A queued job's message says why it waits and its place in the queue.
          status.textContent = j.state === "queued" ? "Waiting to compute " + what + " — " + j.message :
            "Computing " + what + ": " + Math.round(100 * j.progress) + "% — " + j.message;
        });
        es.addEventListener("end", function () {
          es.close();
          loadMap(url, status, what, draw); // the map, or why the job did not make it
        });
        return;
      }
      if (res.status === 404 && b.state) {
        status.textContent = b.state === "not-computed" ? what.charAt(0).toUpperCase() + what.slice(1) + " is not computed yet." :
          "The computation of " + what + " " + b.state + (b.message ? ": " + b.message : "") + ".";
        status.setAttribute("data-state", b.state);
        var compute = status.parentNode.querySelector("[data-testid=map-compute]");
        if (compute) compute.hidden = false;
        return;
      }
      if (res.status !== 200) {
        status.textContent = b.error || ("error " + res.status);
        status.classList.add("alert", "alert-error");
        return;
      }
      draw(b);
    });
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
        if (OOV_KINDS[p.kind]) { g = kindName; colorOf[g] = OOV_COLOR; }
        else { g = p.kind === "instance" ? "in vocabulary" : "in vocabulary: " + kindName; colorOf[g] = IV_COLOR; }
      } else if (p.kind !== "instance") g = kindName;
      else if (colorBy === "corpus") g = p.corpus;
      else if (colorBy === "term") g = p.term;
      else if (colorBy === "topic") { g = topicName(p.topic); colorOf[g] = topicColor(p.topic); }
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

  // instanceClicked shows a clicked point of a term map: its document, a link
  // to overlay the document's terms, and the term's neighbours in its context,
  // each a button: a neighbour drawn on the map in the same document is
  // selected in turn (pick), another opens the map of its term.
  function instanceClicked(pt, params, modelURL, pick) {
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
        var li = neighbourItem(n, function () {
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

  // drawTimed draws a map of n points in chart id by calling draw(gl), gl
  // true when the map's plain points go to the WebGL layer (wantGL). It keeps
  // on the box how the map is drawn (data-renderer: canvas or webgl) and the
  // time from the map's data to the drawn chart ("finished", and the layer's
  // drawing done; in ms: data-render-ms) for the rendering benchmark.
  function drawTimed(box, id, n, draw) {
    var t0 = performance.now(), chart = charts[id], gl = wantGL(n);
    box.setAttribute("data-renderer", gl ? "webgl" : "canvas");
    window.taglensSVG.svgTool(id, box.parentNode && box.parentNode.querySelector(".map-status"));
    chart.on("finished", function once() {
      chart.off("finished", once);
      var layer = gl && window.taglensGL.layers[id];
      if (layer) layer.finish();
      box.setAttribute("data-render-ms", String(Math.round(performance.now() - t0)));
    });
    draw(gl);
  }

  // glLayer gives the WebGL layer of chart id the points of x and y and the
  // colours rgba; click(i) handles a click on point i. It returns the layer.
  function glLayer(chart, id, x, y, rgba, click) {
    var layer = window.taglensGL.attach(chart, id, x, y, click);
    layer.setColors(rgba);
    layer.sync();
    return layer;
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
    var chart = charts[chartID];
    var params = new URL(url, window.location.href).searchParams;
    var modelURL = url.replace(/\/(context-)?map\?.*$/, "");
    var points = [];

    function load() {
      loadMap(url, status, "the t-SNE map", function (data) {
        drawTimed(box, chartID, data.x.length, function (gl) { draw(data, gl); });
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
      chart.setOption(Object.assign({ legend: { data: out.order } }, gl ? glExtent(data.x, data.y) : {}));
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
              " · " + esc(pt.corpus) + " · LDA " + topicName(pt.topic) + "<br/><span style='color:#555'>" + tags + "</span>";
          },
        },
        series: out.series,
      }, { replaceMerge: ["series"] });
      fitLegend(chart);
      if (gl) {
        layer = glLayer(chart, chartID, data.x, data.y, out.rgba, select);
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

  // Shared with the whole-space map (space.js).
  window.taglens = { charts: charts, esc: esc, loadMap: loadMap, neighbourItem: neighbourItem, drawTimed: drawTimed, fitLegend: fitLegend,
    glExtent: glExtent, glLayer: glLayer, topicColor: topicColor, topicName: topicName, mapSVG: function (id, title) { return window.taglensSVG.mapSVG(id, title); },
    oovColor: OOV_COLOR, ivColor: IV_COLOR };

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

  // compareForm greys out, before submitting, the choices that the chosen
  // others rule out, each with its reason (the label's tail and its title;
  // the server would skip them with a note or refuse the form): in the OOV
  // setting the extended protocol and every baseline (§6.2.4); under the
  // priming protocol the global baselines (§6.2.5); CRBM outside the model's
  // own training documents, or with an incomplete context under priming;
  // models of another corpus than the first one ticked (another
  // vocabulary); seed trials with fewer than two models; a ninth model.
  function compareForm(form) {
    var q = function (sel) { return form.querySelector(sel); };
    var qa = function (sel) { return Array.prototype.slice.call(form.querySelectorAll(sel)); };
    var setting = q("[name=setting]"), protocol = q("[name=protocol]"), subset = q("[name=subset]"), corpus = q("[name=corpus_id]");
    var seed = q("[name=seed_trials]"), trials = q("[name=trials]"), note = q("[data-testid=compare-greyed]");
    var extended = protocol.querySelector("option[value=extended]"), extLabel = extended.textContent;
    // grey disables a checkbox with why ("" enables it), unticking it; the
    // reason is a line of its own right after the checkbox's label.
    function grey(input, why) {
      var label = input.closest("label"), next = label.nextElementSibling;
      var tail = next && next.classList.contains("why") ? next : null;
      input.disabled = !!why;
      if (why) input.checked = false;
      label.classList.toggle("greyed", !!why);
      label.title = why;
      if (why && !tail) { tail = document.createElement("span"); tail.className = "why small"; label.insertAdjacentElement("afterend", tail); }
      if (tail) { tail.textContent = why; if (!why) tail.remove(); }
    }
    function update() {
      var oov = setting.value === "oov", priming = protocol.value === "priming";
      var incomplete = setting.value.indexOf("incomplete-context") === 0;
      extended.disabled = oov;
      extended.textContent = oov ? extLabel + " — the OOV setting uses the priming protocol only" : extLabel;
      if (oov && !priming) { protocol.value = "priming"; priming = true; }
      var ownCorpus = !corpus.value || setting.value !== "cross-corpora";
      qa("[name=baselines]").forEach(function (b) {
        var kind = b.getAttribute("data-kind"), why = "";
        if (oov) why = "baselines do not handle OOV terms (§6.2.4)";
        else if (kind === "global" && priming) why = "not contextual: extended protocol only (§6.2.5)";
        else if (kind === "crbm" && (subset.value !== "train" || !ownCorpus)) why = "evaluated on the model's training documents only (§6.2.5)";
        else if (kind === "crbm" && incomplete && priming) why = "its context cannot be made incomplete under priming (§6.5)";
        grey(b, why);
      });
      var models = qa("[name=model_ids]"), ticked = models.filter(function (m) { return m.checked; });
      var first = ticked[0];
      models.forEach(function (m) {
        var why = "";
        if (first && !oov && m.getAttribute("data-kind") !== first.getAttribute("data-kind")) {
          why = "another corpus's vocabulary than " + first.getAttribute("data-label");
        } else if (!m.checked && ticked.length >= 8) why = "at most 8 models";
        grey(m, why);
      });
      ticked = models.filter(function (m) { return m.checked; });
      grey(seed, ticked.length < 2 ? "choose at least two models (one per seed)" : "");
      trials.disabled = seed.checked;
      if (seed.checked) trials.value = String(ticked.length);
      var n = qa("label.greyed").length + (extended.disabled ? 1 : 0);
      note.hidden = n === 0;
      note.textContent = n ? n + " choice" + (n === 1 ? " is" : "s are") + " greyed out by the others, each with its reason." : "";
    }
    form.addEventListener("change", update);
    update();
  }

  // sideForm keeps "Show side by side" from leaving the page unless two to
  // four evaluations are ticked: it says so beside the button instead.
  function sideForm(form) {
    var msg = form.querySelector("[data-testid=side-msg]");
    form.addEventListener("submit", function (e) {
      var n = form.querySelectorAll("input[name=ids]:checked").length;
      if (n >= 2 && n <= 4) { msg.hidden = true; return; }
      e.preventDefault();
      msg.textContent = n === 0 ? "Tick two to four finished evaluations to see them side by side." :
        n === 1 ? "One evaluation is ticked: tick one to three more to see them side by side." :
        n + " evaluations are ticked: side by side shows at most four.";
      msg.hidden = false;
    });
    form.addEventListener("change", function () { msg.hidden = true; });
  }

  function boot(root) {
    initCharts(root);
    root.querySelectorAll("[data-job]").forEach(watchJob);
    root.querySelectorAll("input[data-autocomplete]").forEach(autocomplete);
    root.querySelectorAll("label.drop").forEach(dropzone);
    root.querySelectorAll("[data-map-url]").forEach(explorer);
    if (window.taglens.spaceExplorer) root.querySelectorAll("[data-space-url]").forEach(window.taglens.spaceExplorer);
    root.querySelectorAll("select[data-model-switch]").forEach(modelSwitch);
    root.querySelectorAll("form[data-testid=compare-form]").forEach(compareForm);
    root.querySelectorAll("form[data-testid=side-form]").forEach(sideForm);
  }
  document.addEventListener("DOMContentLoaded", function () { boot(document); });
  document.addEventListener("htmx:load", function (e) {
    if (e.detail.elt !== document.body) {
      initCharts(e.detail.elt);
      e.detail.elt.querySelectorAll && e.detail.elt.querySelectorAll("[data-job]").forEach(watchJob);
    }
  });
})();
