// taglens's own WebGL point layer for the explorer's maps of many points.
// The positions go into a vertex buffer once and the colours whenever the
// view's highlighting changes (a search, a selection, the colouring); a pan
// or a zoom only changes four uniforms, so a frame costs the same JavaScript
// whatever the number of points. The layer is a canvas under the ECharts
// chart, which keeps the axes, the zoom, the legend, the tooltip and the few
// highlighted and labelled points; after each ECharts frame the layer takes
// the grid's data-to-pixel transform from the chart. A uniform grid over the
// data finds the point under the pointer (hover tooltip and click).
//
// During a gesture (views that change in consecutive animation frames, or
// less than IDLE ms apart) the layer does not draw: it moves and scales its
// last full frame with a CSS transform, which costs the browser a composite,
// not a pass over the points. The full frame covers a margin around the
// grid's rectangle (MARGIN of its size on each side, clipped by the layer's
// box), so a pan uncovers drawn points; the layer draws again when the
// gesture pauses (QUIET animation frames and IDLE ms without a change), or at
// once when the view leaves the drawn area or the zoom changed more than
// twice. Counting frames, not only milliseconds, keeps a gesture whole on a
// loaded machine, where one frame can come long after the previous one.
//
// From BIG points on (the map of every instance, up to 10^6), where a full
// frame costs software rendering hundreds of ms, every view change the last
// frame can show moves it, the first of a gesture too, and the drawn margin
// is BIG_MARGIN (a pan of a whole view's width stays inside it); the full
// frame follows when the changes pause (docs/quality-notes.md, D50).
(function () {
  "use strict";

  var VERTEX = [
    "attribute vec2 a_pos;",
    "attribute vec4 a_color;",
    "uniform vec2 u_center;", // data point drawn at u_centerPx (the grid's middle)
    "uniform vec2 u_centerPx;",
    "uniform vec2 u_scale;", // CSS pixels per data unit (y negative: up is smaller y)
    "uniform vec2 u_origin;", // the canvas's top left corner, in the chart's CSS pixels
    "uniform vec2 u_size;", // canvas size in CSS pixels
    "uniform mediump float u_point;", // point diameter in device pixels
    "varying vec4 v_color;",
    "void main() {",
    "  vec2 px = (a_pos - u_center) * u_scale + u_centerPx - u_origin;",
    "  gl_Position = a_color.a > 0.0 ? vec4(px.x / u_size.x * 2.0 - 1.0, 1.0 - px.y / u_size.y * 2.0, 0.0, 1.0) : vec4(2.0, 2.0, 2.0, 1.0);",
    "  gl_PointSize = u_point;",
    "  v_color = a_color;",
    "}",
  ].join("\n");
  // A round sprite with a one-pixel soft edge.
  var FRAGMENT = [
    "precision mediump float;",
    "uniform float u_point;",
    "varying vec4 v_color;",
    "void main() {",
    "  float r = length(gl_PointCoord - 0.5) * u_point;",
    "  float a = clamp(u_point * 0.5 - r + 0.5, 0.0, 1.0);",
    "  if (a <= 0.0) discard;",
    "  gl_FragColor = vec4(v_color.rgb, v_color.a * a);",
    "}",
  ].join("\n");

  // isSupported tells whether the browser gives a WebGL context that builds
  // the layer's shaders.
  var supported = null;
  function isSupported() {
    if (supported !== null) return supported;
    try {
      var gl = document.createElement("canvas").getContext("webgl");
      var lose = gl && gl.getExtension("WEBGL_lose_context");
      supported = !!gl && !!program(gl);
      if (lose) lose.loseContext();
    } catch (e) {
      supported = false;
    }
    return supported;
  }

  function shader(gl, type, src) {
    var s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error("taglens GL: " + gl.getShaderInfoLog(s));
    return s;
  }

  function program(gl) {
    var p = gl.createProgram();
    gl.attachShader(p, shader(gl, gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(p, shader(gl, gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error("taglens GL: " + gl.getProgramInfoLog(p));
    var u = {};
    ["u_center", "u_centerPx", "u_scale", "u_origin", "u_size", "u_point"].forEach(function (k) { u[k] = gl.getUniformLocation(p, k); });
    return { p: p, u: u, pos: gl.getAttribLocation(p, "a_pos"), color: gl.getAttribLocation(p, "a_color") };
  }

  // bucketGrid sorts the points into a uniform grid of about 8 points a cell
  // (a counting sort): start[c]..start[c+1] index order[] for cell c.
  function bucketGrid(x, y) {
    var n = x.length, x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity, i;
    for (i = 0; i < n; i++) {
      if (x[i] < x0) x0 = x[i];
      if (x[i] > x1) x1 = x[i];
      if (y[i] < y0) y0 = y[i];
      if (y[i] > y1) y1 = y[i];
    }
    var side = Math.max(1, Math.min(1024, Math.ceil(Math.sqrt(n / 8))));
    var g = { x0: x0, y0: y0, x1: x1, y1: y1, side: side, w: (x1 - x0) / side || 1, h: (y1 - y0) / side || 1 };
    var cell = new Int32Array(n), start = new Int32Array(side * side + 1), order = new Int32Array(n);
    for (i = 0; i < n; i++) {
      cell[i] = cellOf(g, Math.floor((x[i] - x0) / g.w), Math.floor((y[i] - y0) / g.h));
      start[cell[i] + 1]++;
    }
    for (i = 0; i < side * side; i++) start[i + 1] += start[i];
    var fill = start.slice(0, side * side);
    for (i = 0; i < n; i++) order[fill[cell[i]]++] = i;
    g.start = start;
    g.order = order;
    return g;
  }
  function clampCell(g, c) { return c < 0 ? 0 : c >= g.side ? g.side - 1 : c; }
  function cellOf(g, cx, cy) { return clampCell(g, cy) * g.side + clampCell(g, cx); }

  // Layer draws n points (x, y: data coordinates) on a canvas put under the
  // chart's own, in the chart's element el.
  var IDLE = 250;    // ms without a view change that end a gesture (taglensGL.idle)
  var QUIET = 3;     // animation frames without a view change that end a gesture
  var MARGIN = 0.5;  // drawn margin around the grid, in parts of its size
  var BIG = 200000, BIG_MARGIN = 1;
  var MAX_ZOOM = 2;  // a gesture's zoom beyond this factor draws again

  function Layer(el, x, y) {
    // The box clips the canvas to the grid's rectangle; the canvas holds the
    // rectangle and its margins.
    var box = document.createElement("div");
    box.setAttribute("data-testid", "gl-box");
    box.style.cssText = "position:absolute;left:0;top:0;width:0;height:0;overflow:hidden;pointer-events:none;";
    var canvas = document.createElement("canvas");
    canvas.setAttribute("data-testid", "gl-layer");
    canvas.style.cssText = "position:absolute;left:0;top:0;pointer-events:none;transform-origin:0 0;";
    if (getComputedStyle(el).position === "static") el.style.position = "relative";
    box.appendChild(canvas);
    el.insertBefore(box, el.firstChild);
    this.box = box;
    this.drawnView = null; // the view of the canvas's frame
    this.lastChange = -Infinity;
    this.quiet = Infinity; // animation frames since the last view change
    this.timer = 0;        // the animation frame request of watch
    this.moves = 0; // views shown by moving the last frame (for the tests)
    var gl = canvas.getContext("webgl", { antialias: false, premultipliedAlpha: false, alpha: true });
    if (!gl) throw new Error("taglens GL: no WebGL context");
    this.el = el; this.canvas = canvas; this.gl = gl; this.n = x.length; this.x = x; this.y = y;
    this.margin = this.n >= BIG ? BIG_MARGIN : MARGIN; // the drawn margin, in parts of the grid's size
    this.prog = program(gl);
    this.grid = bucketGrid(x, y);
    this.rgba = new Uint8Array(4 * this.n);
    this.view = null;
    this.pointPx = 4;
    this.draws = 0;
    this.drawn = 0;
    var xy = new Float32Array(2 * this.n);
    // The buffers hold the points in the grid's cell order, so that a zoomed
    // view draws only the runs of cells it shows (drawVisible).
    var order = this.grid.order;
    for (var k = 0; k < this.n; k++) { xy[2 * k] = x[order[k]]; xy[2 * k + 1] = y[order[k]]; }
    this.posBuf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.posBuf);
    gl.bufferData(gl.ARRAY_BUFFER, xy, gl.STATIC_DRAW);
    this.colorBuf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.colorBuf);
    gl.bufferData(gl.ARRAY_BUFFER, this.rgba, gl.DYNAMIC_DRAW);
  }

  // setColors uploads the colours (4 bytes a point, RGBA; alpha 0 hides the
  // point from the drawing and from picking) and draws again.
  Layer.prototype.setColors = function (rgba) {
    this.rgba = rgba;
    var gl = this.gl, order = this.grid.order, sorted = new Uint32Array(this.n), src = new Uint32Array(rgba.buffer, rgba.byteOffset, this.n);
    for (var k = 0; k < this.n; k++) sorted[k] = src[order[k]];
    gl.bindBuffer(gl.ARRAY_BUFFER, this.colorBuf);
    gl.bufferData(gl.ARRAY_BUFFER, new Uint8Array(sorted.buffer), gl.DYNAMIC_DRAW);
    this.shown = 0;
    for (var i = 3; i < rgba.length; i += 4) if (rgba[i]) this.shown++;
    if (this.view) this.draw();
  };

  // setView sets the transform: v = {cx, cy (data), px, py (pixels), sx, sy
  // (pixels a data unit), w, h (the chart's size), clip {x, y, width, height}}.
  // When the view changed it draws, or within a gesture moves the last frame
  // and draws when the gesture pauses.
  Layer.prototype.setView = function (v) {
    var o = this.view;
    if (o && o.cx === v.cx && o.cy === v.cy && o.px === v.px && o.py === v.py && o.sx === v.sx && o.sy === v.sy && o.w === v.w && o.h === v.h) return;
    this.view = v;
    // A gesture's views come in consecutive frames or less than IDLE ms
    // apart, counted from the end of the previous one's work (a slow full
    // frame, or a frame stalled by other work, does not end the gesture).
    var gesture = this.n >= BIG || this.quiet < QUIET || performance.now() - this.lastChange < window.taglensGL.idle;
    if (gesture && this.canMove(v)) this.move(v);
    else this.draw();
    this.lastChange = performance.now();
    this.quiet = 0;
    this.watch();
  };

  // canMove tells whether the last frame, moved and scaled, shows view v:
  // same chart and grid, a zoom within MAX_ZOOM, and the part of the data
  // that v shows inside the drawn area.
  Layer.prototype.canMove = function (v) {
    var d = this.drawnView, g = this.grid;
    if (!d || !this.shown || d.w !== v.w || d.h !== v.h || d.clip.x !== v.clip.x || d.clip.y !== v.clip.y ||
      d.clip.width !== v.clip.width || d.clip.height !== v.clip.height) return false;
    var kx = v.sx / d.sx, ky = v.sy / d.sy;
    if (!(kx > 1 / MAX_ZOOM && kx < MAX_ZOOM && ky > 1 / MAX_ZOOM && ky < MAX_ZOOM)) return false;
    var m = marginOf(d, this.margin);
    var inside = function (c, half, dc, dhalf, lo, hi) {
      var a = Math.max(c - half, lo), b = Math.min(c + half, hi);
      return a >= b || (a >= dc - dhalf && b <= dc + dhalf);
    };
    return inside(v.cx, v.clip.width / 2 / Math.abs(v.sx), d.cx, (d.clip.width / 2 + m.x) / Math.abs(d.sx), g.x0, g.x1) &&
      inside(v.cy, v.clip.height / 2 / Math.abs(v.sy), d.cy, (d.clip.height / 2 + m.y) / Math.abs(d.sy), g.y0, g.y1);
  };

  // move shows view v by a CSS transform of the frame drawn for drawnView.
  Layer.prototype.move = function (v) {
    var d = this.drawnView, m = marginOf(d, this.margin);
    var kx = v.sx / d.sx, ky = v.sy / d.sy;
    // A canvas pixel l (chart pixel l + origin under d) goes to the box's pixel l·k + t.
    var tx = (d.clip.x - m.x - d.px) * kx + (d.cx - v.cx) * v.sx + v.px - v.clip.x;
    var ty = (d.clip.y - m.y - d.py) * ky + (d.cy - v.cy) * v.sy + v.py - v.clip.y;
    this.canvas.style.transform = "translate(" + tx + "px," + ty + "px) scale(" + kx + "," + ky + ")";
    this.moves++;
  };

  // watch counts the animation frames after a view change; once QUIET of
  // them and IDLE ms passed without another, the gesture has paused and the
  // view is drawn in full if a moved frame shows it.
  Layer.prototype.watch = function () {
    var self = this;
    if (this.timer) return;
    var tick = function () {
      self.quiet++;
      if (self.quiet >= QUIET && performance.now() - self.lastChange >= window.taglensGL.idle) {
        self.timer = 0;
        if (self.drawnView !== self.view) self.draw();
        return;
      }
      self.timer = requestAnimationFrame(tick);
    };
    this.timer = requestAnimationFrame(tick);
  };

  // settled tells whether the canvas shows a full frame of the current view.
  Layer.prototype.settled = function () { return !this.timer && this.drawnView === this.view; };

  // marginOf is the drawn margin of view v: k (default MARGIN) of its size a side.
  function marginOf(v, k) { k = k || MARGIN; return { x: Math.round(v.clip.width * k), y: Math.round(v.clip.height * k) }; }

  // resize sizes the box to the grid's rectangle and the canvas to it and
  // its margins; it returns the device pixel ratio drawn at.
  Layer.prototype.resize = function (v) {
    var dpr = this.ratio || window.devicePixelRatio || 1, c = this.canvas, r = v.clip, m = marginOf(v, this.margin);
    var b = this.box.style;
    b.left = r.x + "px"; b.top = r.y + "px"; b.width = r.width + "px"; b.height = r.height + "px";
    var cw = r.width + 2 * m.x, ch = r.height + 2 * m.y;
    var w = Math.round(cw * dpr), h = Math.round(ch * dpr);
    if (c.width !== w || c.height !== h) {
      c.width = w; c.height = h;
      c.style.width = cw + "px"; c.style.height = ch + "px";
    }
    c.style.transform = "translate(" + (-m.x) + "px," + (-m.y) + "px)";
    return dpr;
  };

  // draw draws the points of the current view (and its margins) in full.
  Layer.prototype.draw = function () {
    var gl = this.gl, v = this.view, p = this.prog;
    if (!v) return;
    var dpr = this.resize(v), m = marginOf(v, this.margin);
    this.drawnView = v;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.disable(gl.SCISSOR_TEST);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
    this.drawn = 0;
    if (!this.shown) return;
    gl.enable(gl.BLEND);
    gl.blendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.useProgram(p.p);
    gl.uniform2f(p.u.u_center, v.cx, v.cy);
    gl.uniform2f(p.u.u_centerPx, v.px, v.py);
    gl.uniform2f(p.u.u_scale, v.sx, v.sy);
    gl.uniform2f(p.u.u_origin, v.clip.x - m.x, v.clip.y - m.y);
    gl.uniform2f(p.u.u_size, v.clip.width + 2 * m.x, v.clip.height + 2 * m.y);
    gl.uniform1f(p.u.u_point, this.pointPx * dpr);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.posBuf);
    gl.enableVertexAttribArray(p.pos);
    gl.vertexAttribPointer(p.pos, 2, gl.FLOAT, false, 0, 0);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.colorBuf);
    gl.enableVertexAttribArray(p.color);
    gl.vertexAttribPointer(p.color, 4, gl.UNSIGNED_BYTE, true, 0, 0);
    this.vertices = this.drawVisible(v, m, this.pointPx / 2);
    this.draws++;
    this.drawn = this.shown;
  };

  // drawVisible draws the points of the grid's cells that the view shows
  // with its margins m (and pad pixels more): one run of the buffer a row of
  // cells, or one run for whole rows. It returns the number of points sent.
  Layer.prototype.drawVisible = function (v, m, pad) {
    var g = this.grid, gl = this.gl, r = v.clip;
    var hx = (r.width / 2 + m.x + pad) / Math.abs(v.sx), hy = (r.height / 2 + m.y + pad) / Math.abs(v.sy);
    var c0 = Math.floor((v.cx - hx - g.x0) / g.w), c1 = Math.floor((v.cx + hx - g.x0) / g.w);
    var r0 = Math.floor((v.cy - hy - g.y0) / g.h), r1 = Math.floor((v.cy + hy - g.y0) / g.h);
    if (c1 < 0 || r1 < 0 || c0 >= g.side || r0 >= g.side) return 0;
    c0 = clampCell(g, c0); c1 = clampCell(g, c1); r0 = clampCell(g, r0); r1 = clampCell(g, r1);
    var sent = 0, from, to;
    if (c0 === 0 && c1 === g.side - 1) {
      from = g.start[r0 * g.side]; to = g.start[(r1 + 1) * g.side];
      if (to > from) gl.drawArrays(gl.POINTS, from, to - from);
      return to - from;
    }
    for (var row = r0; row <= r1; row++) {
      from = g.start[row * g.side + c0]; to = g.start[row * g.side + c1 + 1];
      if (to > from) gl.drawArrays(gl.POINTS, from, to - from);
      sent += to - from;
    }
    return sent;
  };

  // finish waits for the drawing to be done (a one-pixel read): for timing.
  Layer.prototype.finish = function () {
    var px = new Uint8Array(4);
    this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, px);
  };

  // inked draws and counts the canvas pixels with some ink (for the tests).
  Layer.prototype.inked = function () {
    this.draw();
    var gl = this.gl, w = this.canvas.width, h = this.canvas.height, px = new Uint8Array(4 * w * h), k = 0;
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    for (var i = 3; i < px.length; i += 4) if (px[i]) k++;
    return k;
  };

  // pixelOf is where point i is drawn, in the chart's pixels.
  Layer.prototype.pixelOf = function (i) {
    var v = this.view;
    return [(this.x[i] - v.cx) * v.sx + v.px, (this.y[i] - v.cy) * v.sy + v.py];
  };

  // pick returns the shown point nearest to the pixel (px, py) within radius
  // pixels, inside the grid's rectangle, or -1.
  Layer.prototype.pick = function (px, py, radius) {
    var v = this.view, g = this.grid;
    if (!v || !this.shown) return -1;
    var r = v.clip;
    if (px < r.x || px > r.x + r.width || py < r.y || py > r.y + r.height) return -1;
    var dx = (px - v.px) / v.sx + v.cx, dy = (py - v.py) / v.sy + v.cy;
    var rx = Math.abs(radius / v.sx), ry = Math.abs(radius / v.sy);
    var c0 = Math.floor((dx - rx - g.x0) / g.w), c1 = Math.floor((dx + rx - g.x0) / g.w);
    var r0 = Math.floor((dy - ry - g.y0) / g.h), r1 = Math.floor((dy + ry - g.y0) / g.h);
    if (c1 < 0 || r1 < 0 || c0 >= g.side || r0 >= g.side) return -1;
    var best = -1, bestD = 1;
    for (var cy = clampCell(g, r0); cy <= clampCell(g, r1); cy++) {
      for (var cx = clampCell(g, c0); cx <= clampCell(g, c1); cx++) {
        var c = cy * g.side + cx;
        for (var k = g.start[c]; k < g.start[c + 1]; k++) {
          var i = g.order[k];
          if (!this.rgba[4 * i + 3]) continue;
          var ex = (this.x[i] - dx) / rx, ey = (this.y[i] - dy) / ry, d = ex * ex + ey * ey;
          if (d < bestD || (d === bestD && i > best)) { bestD = d; best = i; }
        }
      }
    }
    return best;
  };

  Layer.prototype.dispose = function () {
    var lose = this.gl.getExtension("WEBGL_lose_context");
    if (lose) lose.loseContext();
    cancelAnimationFrame(this.timer);
    this.timer = 0;
    this.box.remove();
  };

  // viewOf reads the chart's data-to-pixel transform of its grid.
  function viewOf(chart) {
    var r = chart.getModel().getComponent("grid", 0).coordinateSystem.getRect();
    var a = chart.convertFromPixel({ gridIndex: 0 }, [r.x, r.y + r.height]);
    var b = chart.convertFromPixel({ gridIndex: 0 }, [r.x + r.width, r.y]);
    return { cx: (a[0] + b[0]) / 2, cy: (a[1] + b[1]) / 2, px: r.x + r.width / 2, py: r.y + r.height / 2,
      sx: r.width / (b[0] - a[0]), sy: -r.height / (b[1] - a[1]), w: chart.getWidth(), h: chart.getHeight(),
      clip: { x: r.x, y: r.y, width: r.width, height: r.height } };
  }

  var HOVER = "gl-pointer";
  var RADIUS = 6; // pixels around the pointer that pick a point

  // hoverSeries is the one-point canvas series that stands for the WebGL
  // point under the pointer: ECharts shows its tooltip and reports its click
  // as for any point (value [x, y, i]).
  function hoverSeries() {
    return { id: HOVER, name: "pointer", type: "scatter", data: [], symbolSize: 9, z: 4, animation: false,
      itemStyle: { color: "#111827", opacity: 0.85 }, emphasis: { scale: 1.3 }, label: { show: false } };
  }

  function seriesIndexOf(chart, id) {
    var s = chart.getOption().series || [];
    for (var i = 0; i < s.length; i++) if (s[i].id === id) return i;
    return -1;
  }

  // attach makes the layer of chart id for the points x, y (data coordinates)
  // and keeps it in step with the chart. click(i) is called for a click on a
  // WebGL point that ECharts did not see (no pointer move before it, as a tap).
  // It returns the layer, with sync() (after the app's setOption), reset()
  // (after the hover series was replaced) and click(e) (a zrender click:
  // true when it picked a point).
  function attach(chart, id, x, y, onClick) {
    var old = window.taglensGL.layers[id];
    if (old) old.dispose();
    var layer = new Layer(chart.getDom(), x, y);
    window.taglensGL.layers[id] = layer;
    var cur = -1;
    layer.sync = function () { layer.setView(viewOf(chart)); };
    layer.reset = function () { cur = -1; };
    function hover(i, e) {
      if (i === cur) return;
      cur = i;
      chart.setOption({ series: [{ id: HOVER, data: i < 0 ? [] : [[x[i], y[i], i]] }] });
      if (i < 0) chart.dispatchAction({ type: "hideTip" });
      else chart.dispatchAction({ type: "showTip", seriesIndex: seriesIndexOf(chart, HOVER), dataIndex: 0 });
    }
    chart.on("rendered", layer.sync);
    chart.setOption({ toolbox: { feature: { saveAsImage: { show: false },
      myGLSave: { show: true, title: "Save as PNG", icon: SAVE_ICON, onclick: function () { saveImage(chart, layer); } } } } });
    var zr = chart.getZr();
    zr.on("mousemove", function (e) {
      var i = layer.pick(e.offsetX, e.offsetY, RADIUS);
      // Over a canvas point other than the pointer's: ECharts handles it.
      var onPointer = cur >= 0 && near(layer.pixelOf(cur), e.offsetX, e.offsetY);
      if (e.target && !onPointer) { if (cur >= 0) hover(-1); return; }
      if (!(onPointer && i < 0)) hover(i, e);
    });
    zr.on("globalout", function () { if (cur >= 0) hover(-1); });
    layer.click = function (e) {
      var i = layer.pick(e.offsetX, e.offsetY, RADIUS);
      if (i >= 0) onClick(i);
      return i >= 0;
    };
    return layer;
  }
  // The toolbox's download icon (ECharts' own saveAsImage cannot see the layer).
  var SAVE_ICON = "path://M4.7,22.9L29.3,45.5L54.7,23.4M4.6,43.6L4.6,58L53.8,58L53.8,43.6M29.2,45.1L29.2,0";

  // composite is the map as a canvas at twice the chart's size: the layer
  // drawn on white, the chart's own canvas over it.
  function composite(chart, layer) {
    var o = { pixelRatio: 2, backgroundColor: "transparent" };
    var shown = hideForImage(chart);
    var top = chart.renderToCanvas ? chart.renderToCanvas(o) : chart.getRenderedCanvas(o);
    shown();
    var out = document.createElement("canvas"), ctx = out.getContext("2d");
    out.width = top.width; out.height = top.height;
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, out.width, out.height);
    var v = layer.view, k = out.width / chart.getWidth();
    layer.ratio = 2;
    layer.draw();
    if (v) {
      var m = marginOf(v, layer.margin), r = v.clip;
      ctx.save();
      ctx.beginPath();
      ctx.rect(r.x * k, r.y * k, r.width * k, r.height * k);
      ctx.clip();
      ctx.drawImage(layer.canvas, (r.x - m.x) * k, (r.y - m.y) * k, (r.width + 2 * m.x) * k, (r.height + 2 * m.y) * k);
      ctx.restore();
    }
    layer.ratio = 0;
    layer.draw();
    ctx.drawImage(top, 0, 0);
    return out;
  }

  // hideForImage hides the chart's zoom slider and toolbox from an image
  // rendered next (as getDataURL's excludeComponents does) and returns the
  // function that shows them again.
  function hideForImage(chart) {
    var views = [];
    ["dataZoom", "toolbox"].forEach(function (type) {
      chart.getModel().eachComponent({ mainType: type }, function (m) {
        var v = chart.getViewOfComponentModel(m);
        if (v && v.group && !v.group.ignore) { v.group.ignore = true; views.push(v); }
      });
    });
    return function () { views.forEach(function (v) { v.group.ignore = false; }); };
  }

  // saveImage saves the map as a PNG (composite).
  function saveImage(chart, layer) {
    var out = composite(chart, layer), a = document.createElement("a");
    a.download = "taglens-map.png";
    a.href = out.toDataURL("image/png");
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  function near(p, x, y) { return Math.abs(p[0] - x) <= RADIUS && Math.abs(p[1] - y) <= RADIUS; }

  // rgb reads "#rrggbb" or "#rgb".
  function rgb(hex) {
    var h = String(hex).replace("#", "");
    if (h.length === 3) h = h[0] + h[0] + h[1] + h[1] + h[2] + h[2];
    var v = parseInt(h, 16) || 0;
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }

  // ramp returns the colour at t in [0, 1] of a scale through the colours stops.
  function ramp(stops) {
    var c = stops.map(rgb);
    return function (t) {
      t = Math.max(0, Math.min(1, t)) * (c.length - 1);
      var k = Math.min(c.length - 2, Math.floor(t)), f = t - k;
      return [0, 1, 2].map(function (j) { return Math.round(c[k][j] + (c[k + 1][j] - c[k][j]) * f); });
    };
  }

  // idle is IDLE, a property so that a browser test on a loaded machine can
  // lengthen it (frames there can come more than IDLE ms apart).
  window.taglensGL = { supported: isSupported, Layer: Layer, layers: {}, attach: attach, composite: composite, hoverSeries: hoverSeries, rgb: rgb, ramp: ramp,
    marginOf: marginOf, idle: IDLE };
})();
