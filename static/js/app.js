// taglens page behaviour: chart initialisation from go-echarts option JSON, live
// job progress over server-sent events, tag autocomplete, drag-and-drop upload,
// and the helpers the explorer's maps share (termmap.js, space.js). No framework; htmx handles the forms.
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
  // 1 loss stage 2, 2 CE, 3 Siamese-CE (validation extended MAP).
  function addPoint(chartID, pt) {
    var chart = charts[chartID];
    if (!chart || !pt) return;
    var opt = chart.getOption();
    var series = opt.series.map(function (s) { return { data: (s.data || []).slice() }; });
    var x = 1;
    series.forEach(function (s, i) { if (i < 2) x += s.data.length; });
    var loss = pt.stage === "stage2" ? 1 : 0;
    series[loss].data.push([x, pt.loss]);
    if (pt.valid_map !== undefined && pt.valid_map !== null) {
      series[pt.stage === "stage2" ? 3 : 2].data.push([x, pt.valid_map]);
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

  // ---- Upload progress ----
  // The upload form's request names itself with an X-Upload-Id header; while
  // it runs, GET /api/uploads/{id} says every second how far the server is
  // (the file is parsed as it streams in, then stored).
  var UPLOAD_STAGES = { receiving: "Sending the form", waiting: "Waiting for another upload to be read",
    reading: "Reading", storing: "Storing" };
  function mib(n) { return (n / 1048576).toFixed(1) + " MiB"; }
  function uploadProgressText(u) {
    var t = (UPLOAD_STAGES[u.stage] || u.stage) + ": " + mib(u.received_bytes);
    if (u.total_bytes) t += " of " + mib(u.total_bytes) + " sent";
    else t += " sent";
    if (u.unpacked_bytes > u.received_bytes) t += ", " + mib(u.unpacked_bytes) + " unpacked";
    t += ", " + u.docs.toLocaleString() + " documents read";
    return t + " (" + Math.round(u.elapsed_s) + " s)";
  }
  document.addEventListener("htmx:configRequest", function (e) {
    var form = e.detail.elt;
    if (!form || form.id !== "upload-form") return;
    var line = document.getElementById("upload-progress");
    if (!line) return;
    var id = "p" + Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
    e.detail.headers["X-Upload-Id"] = id;
    var timer = null, over = false;
    var poll = function () {
      fetch("/api/uploads/" + id).then(function (r) { return r.ok ? r.json() : null; }).then(function (u) {
        if (over || !u) return;
        line.textContent = uploadProgressText(u);
        line.hidden = false;
      }).catch(function () {}).then(function () {
        if (!over) timer = setTimeout(poll, 1000);
      });
    };
    timer = setTimeout(poll, 500);
    var stop = function (ev) {
      if (ev.detail.elt !== form) return;
      over = true;
      clearTimeout(timer);
      line.hidden = true;
      line.textContent = "";
      document.removeEventListener("htmx:afterRequest", stop);
    };
    document.addEventListener("htmx:afterRequest", stop);
  });

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
  // With binary, a computed map is handed over as an ArrayBuffer.
  function loadMap(url, status, what, draw, binary) {
    fetch(url).then(function (r) {
      if (binary && r.status === 200) return r.arrayBuffer().then(function (buf) { return { status: 200, body: buf }; });
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
          loadMap(url, status, what, draw, binary); // the map, or why the job did not make it
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

  // Shared with the term maps (termmap.js) and the whole-space map (space.js).
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
    if (window.taglens.termExplorer) root.querySelectorAll("[data-map-url]").forEach(window.taglens.termExplorer);
    if (window.taglens.spaceExplorer) root.querySelectorAll("[data-space-url]").forEach(window.taglens.spaceExplorer);
    if (window.taglens.instancesExplorer) root.querySelectorAll("[data-instances-url]").forEach(window.taglens.instancesExplorer);
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
