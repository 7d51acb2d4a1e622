// taglens's explorer maps as SVG: the "Save as SVG" icon of a map's toolbox
// writes the view (the WebGL layer's points and the canvas series, with
// their labels and the legend) as an SVG document. Split from app.js, whose
// drawTimed adds the icon (svgTool).
(function () {
  "use strict";
  var charts = window.taglensCharts;
  function esc(s) { return window.taglens.esc(s); }

  // mapSVG writes the view of chart id as an SVG document: the grid's frame,
  // the data ranges at its corners, and every point inside the grid — the
  // WebGL layer's (in their colours) and the canvas series' (symbol, size,
  // colour, including a visual map's), in drawing order — with the labels the
  // series show, and the legend's shown entries below the map (a group of
  // class "legend", its symbols of class "key"). Each point is an element of
  // class "pt". title names the view. The density contours (when shown)
  // and the region labels drawn come along (class "density" and
  // "region-label").
  function mapSVG(id, title) {
    var chart = charts[id], W = chart.getWidth(), H = chart.getHeight();
    var opt = chart.getOption(), hidden = (opt.legend && opt.legend[0] && opt.legend[0].selected) || {};
    var r0 = chart.getModel().getComponent("grid", 0).coordinateSystem.getRect();
    var legend = svgLegend(chart, opt, hidden, W, r0.y + r0.height + 34);
    H = Math.max(H, legend.bottom + 8);
    var r = chart.getModel().getComponent("grid", 0).coordinateSystem.getRect();
    var a = chart.convertToPixel({ gridIndex: 0 }, [0, 0]), b = chart.convertToPixel({ gridIndex: 0 }, [1, 1]);
    var sx = b[0] - a[0], sy = b[1] - a[1];
    var px = function (x) { return a[0] + x * sx; }, py = function (y) { return a[1] + y * sy; };
    var inside = function (x, y) { return x >= r.x - 0.5 && x <= r.x + r.width + 0.5 && y >= r.y - 0.5 && y <= r.y + r.height + 0.5; };
    var f = function (v) { return String(Math.round(v * 10) / 10); };
    var num = function (v) { return String(Math.round(v * 1000) / 1000); };
    var lo = chart.convertFromPixel({ gridIndex: 0 }, [r.x, r.y + r.height]), hi = chart.convertFromPixel({ gridIndex: 0 }, [r.x + r.width, r.y]);
    var out = ['<?xml version="1.0" encoding="UTF-8"?>',
      '<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + " " + H + '" font-family="sans-serif" font-size="11">',
      "<title>" + esc(title) + "</title>",
      '<rect width="' + W + '" height="' + H + '" fill="#fff"/>',
      '<defs><clipPath id="grid"><rect x="' + f(r.x) + '" y="' + f(r.y) + '" width="' + f(r.width) + '" height="' + f(r.height) + '"/></clipPath></defs>',
      '<rect x="' + f(r.x) + '" y="' + f(r.y) + '" width="' + f(r.width) + '" height="' + f(r.height) + '" fill="none" stroke="#d1d5db"/>',
      '<g fill="#6b7280">',
      '<text x="' + f(r.x) + '" y="' + f(r.y + r.height + 14) + '">x ' + num(lo[0]) + "</text>",
      '<text x="' + f(r.x + r.width) + '" y="' + f(r.y + r.height + 14) + '" text-anchor="end">x ' + num(hi[0]) + "</text>",
      '<text x="' + f(r.x - 4) + '" y="' + f(r.y + r.height) + '" text-anchor="end">y ' + num(lo[1]) + "</text>",
      '<text x="' + f(r.x - 4) + '" y="' + f(r.y + 10) + '" text-anchor="end">y ' + num(hi[1]) + "</text>",
      "</g>",
      '<g clip-path="url(#grid)">'];
    // The overlay's density contours (when shown) under the points, its
    // region labels (select.js, overlay.js) over them.
    var box = chart.getDom().closest("[data-map-url], [data-space-url]"), ov = box && box.taglensSelector && box.taglensSelector.overlay;
    if (ov && ov.density && ov.analysis) {
      out.push('<g class="density" fill="none" stroke="#312e81" stroke-opacity="0.5">');
      ov.analysis.contours.forEach(function (segs) {
        var d = [];
        for (var j = 0; j < segs.length; j += 4) d.push("M" + f(px(segs[j])) + " " + f(py(segs[j + 1])) + "L" + f(px(segs[j + 2])) + " " + f(py(segs[j + 3])));
        if (d.length) out.push('<path d="' + d.join("") + '"/>');
      });
      out.push("</g>");
    }
    var layer = window.taglensGL && window.taglensGL.layers[id];
    if (layer && layer.view && layer.shown) {
      var rad = f(layer.pointPx / 2), c = layer.rgba;
      out.push('<g data-series="points">');
      for (var i = 0; i < layer.n; i++) {
        if (!c[4 * i + 3]) continue;
        var x = px(layer.x[i]), y = py(layer.y[i]);
        if (!inside(x, y)) continue;
        out.push('<circle class="pt" cx="' + f(x) + '" cy="' + f(y) + '" r="' + rad + '" fill="rgb(' + c[4 * i] + "," + c[4 * i + 1] + "," + c[4 * i + 2] +
          ')" fill-opacity="' + num(c[4 * i + 3] / 255) + '"/>');
      }
      out.push("</g>");
    }
    var labels = [];
    (opt.series || []).forEach(function (s, si) {
      if (s.id === "gl-pointer" || hidden[s.name] === false || !s.data || !s.data.length) return;
      var data = chart.getModel().getSeriesByIndex(si).getData();
      var size = typeof s.symbolSize === "number" ? s.symbolSize : 6, st = s.itemStyle || {};
      var shown = s.label && s.label.show, fmt = shown && s.label.formatter;
      out.push('<g data-series="' + esc(s.name) + '">');
      s.data.forEach(function (d, j) {
        var v = d.value || d, x = px(v[0]), y = py(v[1]);
        if (!inside(x, y)) return;
        var k = data.indexOfRawIndex(j), vis = k >= 0 ? data.getItemVisual(k, "style") : null;
        var fill = (vis && vis.fill) || st.color || "#5470c6";
        var stroke = st.borderColor ? ' stroke="' + esc(st.borderColor) + '" stroke-width="' + (st.borderWidth || 1) + '"' : "";
        var opacity = st.opacity !== undefined ? ' fill-opacity="' + num(st.opacity) + '"' : "";
        out.push(svgSymbol(s.symbol, x, y, size, fill === "transparent" ? "none" : esc(fill), opacity + stroke, f));
        if (shown) {
          var text = typeof fmt === "function" ? fmt({ value: v, data: d, dataIndex: j, name: "" }) : "";
          if (text) labels.push('<text x="' + f(x + size / 2 + 3) + '" y="' + f(y + 4) + '">' + esc(text) + "</text>");
        }
      });
      out.push("</g>");
    });
    out.push("</g>", '<g fill="#111827">');
    out = out.concat(labels);
    out.push("</g>");
    if (ov && ov.labels && ov.placed.length) {
      out.push('<g class="region-labels" font-size="12" font-weight="600" text-anchor="middle">');
      ov.placed.forEach(function (l) {
        out.push('<g class="region-label"><rect x="' + f(l.x) + '" y="' + f(l.y) + '" width="' + f(l.w) + '" height="' + f(l.h) + '" fill="#fff" fill-opacity="0.82" stroke="#374151" stroke-opacity="' + (l.level ? 0.35 : 0.7) + '"/>' +
          '<text x="' + f(l.x + l.w / 2) + '" y="' + f(l.y + l.h / 2 + 4) + '" fill="#111827">' + esc(l.text) + "</text></g>");
      });
      out.push("</g>");
    }
    out = out.concat(legend.lines);
    out.push("</svg>", "");
    return out.join("\n");
  }

  // svgLegend draws the legend of a chart's SVG from y top down: one entry
  // per series the legend lists and shows (hidden: the legend's selected
  // map), its symbol in the series' colour and its name, in rows that wrap
  // at width W. It returns the lines and the bottom of the last row.
  function svgLegend(chart, opt, hidden, W, top) {
    var names = opt.legend && opt.legend[0] && opt.legend[0].data && opt.legend[0].data.length ?
      opt.legend[0].data.map(function (d) { return typeof d === "string" ? d : d.name; }) : null;
    var f = function (v) { return String(Math.round(v * 10) / 10); };
    var items = [];
    (opt.series || []).forEach(function (s, si) {
      if (!s.name || String(s.id || "").indexOf("gl-") === 0 || hidden[s.name] === false) return;
      if (names && names.indexOf(s.name) < 0) return;
      if (items.some(function (it) { return it.name === s.name; })) return;
      var vis = chart.getModel().getSeriesByIndex(si).getData().getVisual("style") || {}, st = s.itemStyle || {};
      var fill = vis.fill || st.color || "#5470c6", stroke = "";
      if (fill === "transparent" || fill === "none") { fill = "none"; stroke = ' stroke="' + esc(st.borderColor || "#1f2937") + '" stroke-width="1"'; }
      items.push({ name: s.name, symbol: s.symbol, fill: fill, stroke: stroke });
    });
    var lines = ['<g class="legend" font-size="11" fill="#374151">'], x = 12, y = top;
    items.forEach(function (it) {
      var w = 22 + String(it.name).length * 6.3;
      if (x > 12 && x + w > W - 8) { x = 12; y += 18; }
      var sym = svgSymbol(it.symbol, x + 5, y - 4, 9, esc(it.fill), it.stroke, f).replace('class="pt"', 'class="key"');
      lines.push('<g class="legend-item">' + sym + '<text x="' + f(x + 14) + '" y="' + f(y) + '">' + esc(it.name) + "</text></g>");
      x += w;
    });
    lines.push("</g>");
    return { lines: items.length ? lines : [], bottom: items.length ? y + 6 : top - 20 };
  }

  // svgSymbol is one point drawn as an ECharts symbol: circle, rect,
  // diamond, triangle, or a path:// polygon scaled to size.
  function svgSymbol(symbol, x, y, size, fill, extra, f) {
    var h = size / 2, pts;
    symbol = symbol || "circle";
    if (symbol === "circle") return '<circle class="pt" cx="' + f(x) + '" cy="' + f(y) + '" r="' + f(h) + '" fill="' + fill + '"' + extra + "/>";
    if (symbol === "rect") return '<rect class="pt" x="' + f(x - h) + '" y="' + f(y - h) + '" width="' + f(size) + '" height="' + f(size) + '" fill="' + fill + '"' + extra + "/>";
    if (symbol === "diamond") pts = [[x, y - h], [x + h, y], [x, y + h], [x - h, y]];
    else if (symbol === "triangle") pts = [[x, y - h], [x + h, y + h], [x - h, y + h]];
    else {
      var nums = String(symbol).replace("path://", "").match(/-?[\d.]+/g) || [];
      pts = [];
      for (var i = 0; i + 1 < nums.length; i += 2) pts.push([x - h + Number(nums[i]) * size / 100, y - h + Number(nums[i + 1]) * size / 100]);
    }
    return '<polygon class="pt" points="' + pts.map(function (p) { return f(p[0]) + "," + f(p[1]); }).join(" ") + '" fill="' + fill + '"' + extra + "/>";
  }

  // saveSVG downloads the view of chart id as taglens-map.svg.
  function saveSVG(id, title) {
    var url = URL.createObjectURL(new Blob([mapSVG(id, title)], { type: "image/svg+xml" }));
    var a = document.createElement("a");
    a.download = "taglens-map.svg";
    a.href = url;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  }

  // svgTool puts "Save as SVG" in the toolbox of chart id (box: the map's
  // element, whose status line titles the SVG).
  function svgTool(id, status) {
    charts[id].setOption({ toolbox: { feature: { mySVG: { show: true, title: "Save as SVG", icon: SVG_ICON,
      onclick: function () { saveSVG(id, "taglens map: " + (status ? status.textContent : id)); } } } } });
  }
  // A page with a corner folded, for the SVG download.
  var SVG_ICON = "path://M4,0L40,0L56,16L56,64L4,64Z M40,0L40,16L56,16";

  window.taglensSVG = { mapSVG: mapSVG, saveSVG: saveSVG, svgTool: svgTool };
})();
