// taglens's density layer and region labels for the explorer's maps,
// computed in the browser from the points' positions (no server round trip:
// the map's data is already here). A kernel density estimate on a grid (the
// points splatted bilinearly on GRID×GRID cells, then a separable Gaussian
// blur) gives the heat map and its contours (marching squares). The same
// estimate at three bandwidths clusters the map deterministically: every
// cell above a floor climbs to its highest neighbour, and the cells that
// reach one peak are one region (its basin); a point belongs to its cell's
// region. Each region is labelled with its most characteristic tags, by
// tf-idf of the region's tags against the whole map's. The coarsest regions
// are labelled at every zoom, the finer ones once the map is zoomed in 2×
// and 4×, each label only where it fits without overlapping another.
//
// Measured in headless Chromium (software rendering, a shared 2-core machine
// at load 8; TestBrowserDensityBench, best of three): the whole analysis
// (three estimates, the regions, their labels, the contours) takes 25 ms for
// 10^4 points, 47 ms for 10^5 and 432 ms for 10^6; the demo's whole-space
// map (108 terms) about 15-50 ms. A frame of the overlay then costs a few ms
// whatever the number of points (an image and a few thousand segments), and
// select.js runs the analysis once the map's first frame is drawn.
// Computed on the server it would cost a request and a second copy of data
// the browser already holds, so it stays here. The map's element keeps the
// last analysis's time in data-density-ms.
(function () {
  "use strict";

  var GRID = 128;                           // cells a side of the estimate
  var SIGMAS = [GRID / 18, GRID / 36, GRID / 72]; // bandwidths of the region levels, in cells
  var HEAT_SMALL = 2000;                    // below this many points the heat map draws level 0's estimate, else level 1's
  var FLOOR = 0.03;                         // a region's cells are above this part of the peak density
  var CONTOURS = [0.1, 0.25, 0.45, 0.7];    // contour levels, parts of the maximum
  var LABEL_TAGS = 2;                       // tags a label names

  // extentOf is the points' bounding box, padded by 8% a side (the kernels
  // of the edge points stay inside the grid).
  function extentOf(x, y) {
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (var i = 0; i < x.length; i++) {
      if (x[i] < x0) x0 = x[i];
      if (x[i] > x1) x1 = x[i];
      if (y[i] < y0) y0 = y[i];
      if (y[i] > y1) y1 = y[i];
    }
    var px = (x1 - x0) * 0.08 || 1, py = (y1 - y0) * 0.08 || 1;
    return { x0: x0 - px, x1: x1 + px, y0: y0 - py, y1: y1 + py };
  }

  // splat adds each point to the four cells around it (bilinear weights);
  // it also returns each point's cell.
  function splat(x, y, ext, G) {
    var d = new Float32Array(G * G), cell = new Int32Array(x.length);
    var kx = G / (ext.x1 - ext.x0), ky = G / (ext.y1 - ext.y0);
    for (var i = 0; i < x.length; i++) {
      var gx = (x[i] - ext.x0) * kx - 0.5, gy = (y[i] - ext.y0) * ky - 0.5;
      var cx = Math.floor(gx), cy = Math.floor(gy), fx = gx - cx, fy = gy - cy;
      cell[i] = clamp(Math.round(gy), G) * G + clamp(Math.round(gx), G);
      add(d, G, cx, cy, (1 - fx) * (1 - fy));
      add(d, G, cx + 1, cy, fx * (1 - fy));
      add(d, G, cx, cy + 1, (1 - fx) * fy);
      add(d, G, cx + 1, cy + 1, fx * fy);
    }
    return { d: d, cell: cell };
  }
  function clamp(c, G) { return c < 0 ? 0 : c >= G ? G - 1 : c; }
  function add(d, G, cx, cy, w) { if (cx >= 0 && cy >= 0 && cx < G && cy < G) d[cy * G + cx] += w; }

  // blur is the separable Gaussian blur of d (G×G) with deviation sigma cells.
  function blur(d, G, sigma) {
    var r = Math.ceil(3 * sigma), k = new Float32Array(2 * r + 1), s = 0, i;
    for (i = -r; i <= r; i++) { k[i + r] = Math.exp(-i * i / (2 * sigma * sigma)); s += k[i + r]; }
    for (i = 0; i < k.length; i++) k[i] /= s;
    var tmp = new Float32Array(G * G), out = new Float32Array(G * G);
    for (var y = 0; y < G; y++) {
      for (var x = 0; x < G; x++) {
        var v = d[y * G + x];
        if (!v) continue;
        for (var j = Math.max(0, x - r); j <= Math.min(G - 1, x + r); j++) tmp[y * G + j] += v * k[j - x + r];
      }
    }
    for (y = 0; y < G; y++) {
      for (x = 0; x < G; x++) {
        v = tmp[y * G + x];
        if (!v) continue;
        for (j = Math.max(0, y - r); j <= Math.min(G - 1, y + r); j++) out[j * G + x] += v * k[j - y + r];
      }
    }
    return out;
  }

  // basins gives each cell above floor × the maximum the peak its steepest
  // ascent reaches (-1 below the floor); ties go to the lower cell index,
  // so the regions are the same on every run.
  function basins(d, G) {
    var max = 0, i;
    for (i = 0; i < d.length; i++) if (d[i] > max) max = d[i];
    var floor = max * FLOOR, up = new Int32Array(G * G);
    for (i = 0; i < d.length; i++) {
      if (d[i] <= floor) { up[i] = -1; continue; }
      var cx = i % G, cy = (i - cx) / G, best = i;
      for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
          var nx = cx + dx, ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= G || ny >= G) continue;
          var j = ny * G + nx;
          if (d[j] > d[best] || (d[j] === d[best] && j < best)) best = j;
        }
      }
      up[i] = best;
    }
    var root = new Int32Array(G * G);
    for (i = 0; i < up.length; i++) {
      var c = i;
      while (c >= 0 && up[c] !== c) c = up[c];
      root[i] = c;
    }
    return root;
  }

  // regions clusters the points at one bandwidth: the basins holding at
  // least minSize points, each with its points (ascending) and its peak
  // (data units), in the order of their peak cells.
  function regions(base, cell, ext, G, sigma, level, minSize) {
    var d = blur(base, G, sigma), root = basins(d, G), n = cell.length, i;
    var count = new Int32Array(G * G), out = [];
    for (i = 0; i < n; i++) { var r = root[cell[i]]; if (r >= 0) count[r]++; }
    var byRoot = {};
    for (r = 0; r < G * G; r++) {
      if (count[r] < minSize) continue;
      var cx = r % G, cy = (r - cx) / G;
      byRoot[r] = { level: level, points: new Int32Array(count[r]), size: 0,
        x: ext.x0 + (cx + 0.5) * (ext.x1 - ext.x0) / G, y: ext.y0 + (cy + 0.5) * (ext.y1 - ext.y0) / G };
      out.push(byRoot[r]);
    }
    for (i = 0; i < n; i++) {
      var g = byRoot[root[cell[i]]];
      if (g) g.points[g.size++] = i;
    }
    return { density: d, regions: out };
  }

  // Tags holds every point's tags as numbers: point i's are ids[off[i]] to
  // ids[off[i+1]-1], names[id] the tag; df[id] counts the points with it.
  function tagTable(n, tagsOf) {
    var index = new Map(), names = [], off = new Int32Array(n + 1), ids = [];
    for (var i = 0; i < n; i++) {
      var ts = tagsOf(i);
      for (var k = 0; k < ts.length; k++) {
        var id = index.get(ts[k]);
        if (id === undefined) { id = names.length; index.set(ts[k], id); names.push(ts[k]); }
        ids.push(id);
      }
      off[i + 1] = ids.length;
    }
    ids = Int32Array.from(ids);
    var df = new Float64Array(names.length);
    for (i = 0; i < ids.length; i++) df[ids[i]]++;
    return { names: names, off: off, ids: ids, df: df, tf: new Float64Array(names.length) };
  }

  // characteristic names a region's most characteristic tags: tf (the
  // share of the region's weight whose point has the tag) times idf (the
  // log of the map's points over the points with the tag), ties by weight
  // then by name.
  function characteristic(pts, tt, weightOf, n) {
    var tf = tt.tf, touched = [], total = 0;
    for (var p = 0; p < pts.length; p++) {
      var i = pts[p], w = weightOf ? weightOf(i) : 1;
      total += w;
      for (var k = tt.off[i]; k < tt.off[i + 1]; k++) {
        var id = tt.ids[k];
        if (!tf[id]) touched.push(id);
        tf[id] += w;
      }
    }
    var scored = [];
    touched.forEach(function (id) {
      var score = (tf[id] / total) * Math.log(n / tt.df[id]);
      if (score > 0) scored.push({ tag: tt.names[id], w: tf[id], score: score });
      tf[id] = 0;
    });
    scored.sort(function (a, b) { return b.score - a.score || b.w - a.w || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0); });
    return scored.slice(0, LABEL_TAGS).map(function (s) { return s.tag; });
  }

  // marching traces the contour of d (G×G) at level: segments in grid
  // units, four numbers each.
  function marching(d, G, level) {
    var segs = [];
    var lerp = function (a, b) { return (level - a) / (b - a); };
    for (var y = 0; y < G - 1; y++) {
      for (var x = 0; x < G - 1; x++) {
        var a = d[y * G + x], b = d[y * G + x + 1], c = d[(y + 1) * G + x + 1], e = d[(y + 1) * G + x];
        var code = (a > level ? 1 : 0) | (b > level ? 2 : 0) | (c > level ? 4 : 0) | (e > level ? 8 : 0);
        if (code === 0 || code === 15) continue;
        // The crossings on the four edges: bottom (a-b), right (b-c), top (e-c), left (a-e).
        var pts = [];
        if ((code & 1) !== ((code >> 1) & 1)) pts.push([x + lerp(a, b), y]);
        if (((code >> 1) & 1) !== ((code >> 2) & 1)) pts.push([x + 1, y + lerp(b, c)]);
        if (((code >> 3) & 1) !== ((code >> 2) & 1)) pts.push([x + lerp(e, c), y + 1]);
        if ((code & 1) !== ((code >> 3) & 1)) pts.push([x, y + lerp(a, e)]);
        for (var k = 0; k + 1 < pts.length; k += 2) segs.push(pts[k][0], pts[k][1], pts[k + 1][0], pts[k + 1][1]);
      }
    }
    return segs;
  }

  // analyse computes the density and the labelled regions of the points of
  // src: {x, y (arrays), tags(i) (the point's tags), weight(i) (optional,
  // default 1)}. Regions without a characteristic tag get no label.
  function analyse(src) {
    var t0 = performance.now(), n = src.x.length, G = GRID;
    var ext = extentOf(src.x, src.y), s = splat(src.x, src.y, ext, G);
    var tt = tagTable(n, src.tags), i;
    var labels = [], heat = null;
    SIGMAS.forEach(function (sigma, level) {
      var minSize = Math.max(3, Math.ceil(n * 0.01 / (level + 1)));
      var r = regions(s.d, s.cell, ext, G, sigma, level, minSize);
      if (level === (n < HEAT_SMALL ? 0 : 1)) heat = r.density;
      r.regions.forEach(function (g) {
        g.tags = characteristic(g.points, tt, src.weight, n);
        if (g.tags.length) labels.push(g);
      });
    });
    // The biggest regions of the coarsest level claim their place first.
    labels.sort(function (a, b) { return a.level - b.level || b.size - a.size || a.x - b.x; });
    var max = 0;
    for (i = 0; i < heat.length; i++) if (heat[i] > max) max = heat[i];
    var kx = (ext.x1 - ext.x0) / G, ky = (ext.y1 - ext.y0) / G;
    var contours = CONTOURS.map(function (f) {
      var segs = marching(heat, G, f * max);
      for (var j = 0; j < segs.length; j += 2) { segs[j] = ext.x0 + (segs[j] + 0.5) * kx; segs[j + 1] = ext.y0 + (segs[j + 1] + 0.5) * ky; }
      return segs;
    });
    return { ext: ext, grid: G, heat: heat, max: max, image: heatImage(heat, G, max), contours: contours, labels: labels,
      ms: performance.now() - t0 };
  }

  // heatImage paints the estimate on a G×G canvas (row 0 at the bottom of
  // the map): transparent where nothing is, blue to violet where it is dense.
  function heatImage(d, G, max) {
    var c = document.createElement("canvas");
    c.width = G; c.height = G;
    var ctx = c.getContext("2d"), img = ctx.createImageData(G, G);
    for (var y = 0; y < G; y++) {
      for (var x = 0; x < G; x++) {
        var v = max ? Math.sqrt(d[y * G + x] / max) : 0, o = 4 * ((G - 1 - y) * G + x);
        img.data[o] = Math.round(59 + 80 * v);
        img.data[o + 1] = Math.round(130 - 90 * v);
        img.data[o + 2] = Math.round(246 - 40 * v);
        img.data[o + 3] = v < 0.04 ? 0 : Math.round(150 * v);
      }
    }
    ctx.putImageData(img, 0, 0);
    return c;
  }

  window.taglensDensity = { analyse: analyse, marching: marching, blur: blur, basins: basins, GRID: GRID };
})();
