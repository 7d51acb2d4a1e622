// taglens's map overlay: two 2-D canvases that follow an explorer map's
// ECharts grid. The one under the chart draws the density layer (the heat
// map and its contours, density.js); the one above draws the selection (the
// points outside it washed out, its points marked), the lasso or box being
// drawn, and the region labels. Both redraw after every frame of the chart
// (a pan or a zoom), from data computed once per map.
(function () {
  "use strict";

  var LABEL_FONT = "600 12px system-ui, sans-serif";
  var LABEL_PAD = 4;   // pixels kept clear around a label
  var MARK_COLOR = "#c2410c";

  // viewOf is the chart's data-to-pixel transform of its grid: a point (x,
  // y) is drawn at (ax + x·sx, ay + y·sy); clip is the grid's rectangle.
  function viewOf(chart) {
    var r = chart.getModel().getComponent("grid", 0).coordinateSystem.getRect();
    var a = chart.convertToPixel({ gridIndex: 0 }, [0, 0]), b = chart.convertToPixel({ gridIndex: 0 }, [1, 1]);
    return { ax: a[0], ay: a[1], sx: b[0] - a[0], sy: b[1] - a[1], clip: { x: r.x, y: r.y, width: r.width, height: r.height },
      w: chart.getWidth(), h: chart.getHeight() };
  }

  function canvas(testid, events) {
    var c = document.createElement("canvas");
    c.setAttribute("data-testid", testid);
    c.style.position = "absolute";
    c.style.left = "0";
    c.style.top = "0";
    c.style.pointerEvents = events ? "auto" : "none";
    return c;
  }

  // Overlay follows chart (on its element el); box is the map's element,
  // which gets the overlay's state as attributes for the tests:
  // data-density (on/off), data-labels (labels drawn), data-selected.
  function Overlay(chart, box) {
    this.chart = chart;
    this.el = chart.getDom();
    this.box = box;
    if (getComputedStyle(this.el).position === "static") this.el.style.position = "relative";
    this.under = canvas("density-layer", false);
    this.over = canvas("map-overlay", false);
    this.over.style.zIndex = "2";
    this.el.appendChild(this.over);
    this.analysis = null;
    this.density = false;
    this.labels = true;
    this.mask = null;    // Uint8Array: 1 for the points of the selection
    this.path = null;    // the lasso or box being drawn, in pixels
    this.placed = [];    // the labels drawn: {text, x, y, w, h, level}
    this.x = null; this.y = null;
    this.frame = 0;
    var self = this;
    chart.on("rendered", function () { self.schedule(); });
    window.addEventListener("resize", function () { self.schedule(); });
  }

  // setData gives the overlay the points and their analysis (density.js).
  Overlay.prototype.setData = function (x, y, analysis) {
    this.x = x; this.y = y; this.analysis = analysis;
    this.box.setAttribute("data-density-ms", String(Math.round(analysis.ms)));
    this.box.setAttribute("data-regions", String(analysis.labels.length));
    this.draw();
  };
  Overlay.prototype.setDensity = function (on) { this.density = on; this.draw(); };
  Overlay.prototype.setLabels = function (on) { this.labels = on; this.draw(); };
  Overlay.prototype.setMask = function (mask) { this.mask = mask; this.draw(); };
  Overlay.prototype.setPath = function (path) { this.path = path; this.draw(); };

  // schedule draws at the next animation frame (once for several events).
  Overlay.prototype.schedule = function () {
    var self = this;
    if (this.frame) return;
    this.frame = requestAnimationFrame(function () { self.frame = 0; self.draw(); });
  };

  // size fits a canvas to the chart and returns its context, cleared and
  // clipped to the grid's rectangle (in CSS pixels).
  function sized(c, v) {
    var dpr = window.devicePixelRatio || 1, w = Math.round(v.w * dpr), h = Math.round(v.h * dpr);
    if (c.width !== w || c.height !== h) {
      c.width = w; c.height = h;
      c.style.width = v.w + "px"; c.style.height = v.h + "px";
    }
    var ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, v.w, v.h);
    ctx.beginPath();
    ctx.rect(v.clip.x, v.clip.y, v.clip.width, v.clip.height);
    ctx.clip();
    return ctx;
  }

  Overlay.prototype.draw = function () {
    if (!this.x || !this.chart.getModel()) return;
    var v = viewOf(this.chart);
    if (this.density && this.el.firstChild !== this.under) this.el.insertBefore(this.under, this.el.firstChild);
    if (!this.density && this.under.parentNode) this.under.remove();
    if (this.density) this.drawDensity(v);
    var ctx = sized(this.over, v);
    ctx.save();
    if (this.mask) this.drawMask(ctx, v);
    if (this.path) this.drawPath(ctx);
    this.placed = this.labels ? this.drawLabels(ctx, v) : [];
    ctx.restore();
    this.box.setAttribute("data-density", this.density ? "on" : "off");
    this.box.setAttribute("data-labels", String(this.placed.length));
  };

  Overlay.prototype.drawDensity = function (v) {
    var a = this.analysis, ctx = sized(this.under, v), e = a.ext;
    var x0 = v.ax + e.x0 * v.sx, x1 = v.ax + e.x1 * v.sx, y0 = v.ay + e.y1 * v.sy, y1 = v.ay + e.y0 * v.sy;
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(a.image, x0, y0, x1 - x0, y1 - y0);
    ctx.lineWidth = 1;
    a.contours.forEach(function (segs, k) {
      ctx.strokeStyle = "rgba(49, 46, 129, " + (0.35 + 0.15 * k) + ")";
      ctx.beginPath();
      for (var j = 0; j < segs.length; j += 4) {
        ctx.moveTo(v.ax + segs[j] * v.sx, v.ay + segs[j + 1] * v.sy);
        ctx.lineTo(v.ax + segs[j + 2] * v.sx, v.ay + segs[j + 3] * v.sy);
      }
      ctx.stroke();
    });
  };

  // drawMask washes the map out and marks the selection's points.
  Overlay.prototype.drawMask = function (ctx, v) {
    ctx.fillStyle = "rgba(255, 255, 255, 0.6)";
    ctx.fillRect(v.clip.x, v.clip.y, v.clip.width, v.clip.height);
    ctx.fillStyle = MARK_COLOR;
    // Many points as squares: a pan redraws them every frame.
    var m = this.mask, x = this.x, y = this.y, many = m.length > 3000, r = many ? 1.5 : 3.5;
    ctx.beginPath();
    for (var i = 0; i < m.length; i++) {
      if (!m[i]) continue;
      var px = v.ax + x[i] * v.sx, py = v.ay + y[i] * v.sy;
      if (px < v.clip.x - r || py < v.clip.y - r || px > v.clip.x + v.clip.width + r || py > v.clip.y + v.clip.height + r) continue;
      if (many) { ctx.rect(px - r, py - r, 2 * r, 2 * r); continue; }
      ctx.moveTo(px + r, py);
      ctx.arc(px, py, r, 0, 2 * Math.PI);
    }
    ctx.fill();
  };

  Overlay.prototype.drawPath = function (ctx) {
    var p = this.path;
    if (p.length < 2) return;
    ctx.beginPath();
    ctx.moveTo(p[0][0], p[0][1]);
    for (var i = 1; i < p.length; i++) ctx.lineTo(p[i][0], p[i][1]);
    ctx.closePath();
    ctx.fillStyle = "rgba(194, 65, 12, 0.08)";
    ctx.fill();
    ctx.setLineDash([5, 4]);
    ctx.strokeStyle = MARK_COLOR;
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.setLineDash([]);
  };

  // drawLabels places the region labels in their order (coarse regions
  // first, bigger first): a region of level L once the map is zoomed in
  // 2^L times or more, its peak in view, its box clear of those placed.
  // A finer region labelled like one placed is skipped.
  Overlay.prototype.drawLabels = function (ctx, v) {
    var a = this.analysis, placed = [], seen = {};
    var zoom = zoomOf(this.chart);
    ctx.font = LABEL_FONT;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    a.labels.forEach(function (g) {
      if (zoom < Math.pow(2, g.level) * 0.999) return;
      var text = g.tags.join(" · ");
      if (seen[text]) return;
      var px = v.ax + g.x * v.sx, py = v.ay + g.y * v.sy, w = ctx.measureText(text).width + 8, h = 18;
      var b = { x: px - w / 2, y: py - h / 2, w: w, h: h };
      if (b.x < v.clip.x || b.y < v.clip.y || b.x + w > v.clip.x + v.clip.width || b.y + h > v.clip.y + v.clip.height) return;
      for (var k = 0; k < placed.length; k++) {
        var q = placed[k];
        if (b.x < q.x + q.w + LABEL_PAD && q.x < b.x + w + LABEL_PAD && b.y < q.y + q.h + LABEL_PAD && q.y < b.y + h + LABEL_PAD) return;
      }
      seen[text] = true;
      placed.push({ text: text, x: b.x, y: b.y, w: w, h: h, level: g.level });
    });
    placed.forEach(function (b) {
      ctx.fillStyle = "rgba(255, 255, 255, 0.82)";
      ctx.fillRect(b.x, b.y, b.w, b.h);
      ctx.strokeStyle = b.level ? "rgba(55, 65, 81, 0.35)" : "rgba(55, 65, 81, 0.7)";
      ctx.lineWidth = 1;
      ctx.strokeRect(b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
      ctx.fillStyle = b.level ? "#374151" : "#111827";
      ctx.fillText(b.text, b.x + b.w / 2, b.y + b.h / 2 + 0.5);
    });
    return placed;
  };

  // zoomOf is how many times the map is zoomed in: the least of its x and
  // y ranges' zoom (the data zoom's start and end, in percent).
  function zoomOf(chart) {
    var z = Infinity;
    // The model, not getOption(), which would copy every series's data.
    chart.getModel().eachComponent("dataZoom", function (m) {
      var r = m.getPercentRange ? m.getPercentRange() : [m.option.start, m.option.end];
      if (r && r[1] > r[0]) z = Math.min(z, 100 / (r[1] - r[0]));
    });
    return isFinite(z) ? z : 1;
  }

  // toData turns a pixel of the chart into data units.
  Overlay.prototype.toData = function (px, py) {
    var v = viewOf(this.chart);
    return [(px - v.ax) / v.sx, (py - v.ay) / v.sy];
  };
  Overlay.prototype.view = function () { return viewOf(this.chart); };

  window.taglensOverlay = { Overlay: Overlay, viewOf: viewOf, zoomOf: zoomOf };
})();
