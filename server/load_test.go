package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/internal/app"
)

// syntheticMap is a 2-D map of n instances of term in clusters, each point with
// 4 more tags of its (synthetic) document drawn from a 10,000-tag vocabulary with
// Zipf-distributed use (s = 1.1, like the tag-use curves of the paper's Figure 3):
// the size and shape of a real 10,000-instance map, for serving and rendering
// tests (the numbers are not a t-SNE result and nothing checks them as one).
func syntheticMap(n int, term string, seed uint64) *mapData {
	rng := rand.New(rand.NewPCG(seed, 7))
	zipf := rand.NewZipf(rng, 1.1, 1, 9999)
	md := &mapData{Term: term, Variant: "siamese-ce", KL: 1.5, Topics: 4} // with topics: served as stored
	for i := 0; i < n; i++ {
		k := rng.IntN(6)
		a := float64(k) * math.Pi / 3
		tags := []string{term}
		for j := 0; j < 4; j++ {
			tags = append(tags, "tag-"+strconv.FormatUint(zipf.Uint64(), 10))
		}
		md.Points = append(md.Points, mapPoint{
			X: app.Round4(30*math.Cos(a) + 4*rng.NormFloat64()), Y: app.Round4(30*math.Sin(a) + 4*rng.NormFloat64()),
			Term: term, DocID: fmt.Sprintf("doc-%05d", i), Kind: "instance", Corpus: "demo", Cluster: k % 3, Topic: k % 4, Tags: tags,
		})
	}
	return md
}

// loadTerm is the term whose map the load tests replace by a synthetic one in
// the shared test store; no other test maps it.
const loadTerm = "rock"

// putSyntheticMap caches a synthetic 10,000-point map of loadTerm (Siamese-CE,
// the model's corpus).
func putSyntheticMap(t *testing.T, ts *testServer, modelID, corpusID string) {
	t.Helper()
	putSyntheticMapN(t, ts, modelID, corpusID, 10000)
}

// putSyntheticMapN caches a synthetic map of n points of loadTerm.
func putSyntheticMapN(t *testing.T, ts *testServer, modelID, corpusID string, n int) {
	t.Helper()
	b, err := json.Marshal(syntheticMap(n, loadTerm, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.store.PutMap(context.Background(), modelID, mapKey("siamese-ce", loadTerm, []string{corpusID}), b); err != nil {
		t.Fatal(err)
	}
	ts.maps.dropModel(modelID)
	t.Logf("synthetic map: %d points, %d bytes of JSON", n, len(b))
}

// TestMapLoad measures the map endpoint on a cached 10,000-point map with 50
// concurrent connections. By default it runs 3 s and checks there are no errors;
// TAGLENS_LOAD_SECONDS=30 runs the full measurement and also requires
// p95 ≤ 50 ms (issue 6). Numbers taken under -race or a loaded machine are
// logged, not asserted.
func TestMapLoad(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	points := 10000
	if v := os.Getenv("TAGLENS_LOAD_POINTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 || n > 1_000_000 {
			t.Fatalf("TAGLENS_LOAD_POINTS=%q: want 10..1000000", v)
		}
		points = n
	}
	putSyntheticMapN(t, ts, modelID, corpusID, points)
	base := liveServer(t, ts)
	target := base + "/api/models/" + modelID + "/map?term=" + loadTerm + "&variant=siamese-ce"

	secs := 3
	assert := false
	if v := os.Getenv("TAGLENS_LOAD_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 600 {
			t.Fatalf("TAGLENS_LOAD_SECONDS=%q: want 1..600", v)
		}
		secs, assert = n, !raceEnabled
	}
	// Warm the in-memory cache: the measurement is of a cached map.
	if _, err := loadTest(context.Background(), target, 1, 10*time.Second, 1, nil); err != nil {
		t.Fatal(err)
	}
	for _, enc := range []string{"gzip", "identity"} {
		res, err := loadTest(context.Background(), target, 50, time.Duration(secs)*time.Second, 10_000_000,
			map[string]string{"Accept-Encoding": enc})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("map endpoint, %d points, 50 connections, %s: %v; load average after: %s", points, enc, res, loadAverage())
		if res.Errors != 0 || res.Requests == 0 {
			t.Errorf("%s: got %d errors in %d requests, want 0 errors", enc, res.Errors, res.Requests)
		}
		if assert && enc == "gzip" && res.P95 > 50*time.Millisecond {
			t.Errorf("%s: p95 %v, want ≤ 50 ms", enc, res.P95)
		}
	}
	if os.Getenv("TAGLENS_WRK") != "" {
		runWrk(t, target, secs, 50)
	}
	if _, err := loadTest(context.Background(), "http://192.0.2.1/", 1, time.Second, 1, nil); err == nil {
		t.Error("loadTest accepted a non-loopback target")
	}
}

// TestExplorer10k opens the explorer on a cached 10,000-point map in headless
// Chromium and checks it stays responsive: the map draws and a hover tooltip
// appears, drawn by default with the WebGL layer and with ?gl=off on canvas.
// It logs the times.
func TestExplorer10k(t *testing.T) {
	ctx := browser(t)
	ts, corpusID, modelID := trainedServer(t)
	putSyntheticMap(t, ts, modelID, corpusID)
	base := liveServer(t, ts)
	start := time.Now()
	step(t, ctx, "explorer 10k", time.Minute, openMap(base+"/explorer?model="+modelID+"&term="+loadTerm))
	waitJS(t, ctx, "10k map drawn", time.Minute, `document.querySelector('[data-testid="map"]').getAttribute('data-ready') === 'true'`)
	drawn := time.Since(start)
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.getElementById('map-status').getAttribute('data-points'))`))
	if err != nil || n != 10000 {
		t.Fatalf("points drawn: got %d (%v), want 10000", n, err)
	}
	how, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="map"]').getAttribute('data-renderer')`))
	if err != nil || how != "webgl" {
		t.Fatalf("renderer by default: got %q (%v), want webgl", how, err)
	}
	start = time.Now()
	hoverGLPoint(t, ctx, "map", loadTerm)
	t.Logf("10,000-point explorer, WebGL layer: page to map drawn %v; hover to tooltip %v", drawn.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	screenshot(t, ctx, shotDir(t), "8-explorer-10k")

	step(t, ctx, "explorer 10k on canvas", time.Minute, openMap(base+"/explorer?model="+modelID+"&term="+loadTerm+"&gl=off"))
	waitJS(t, ctx, "10k map drawn on canvas", time.Minute, `document.querySelector('[data-testid="map"]').getAttribute('data-ready') === 'true' &&
		document.querySelector('[data-testid="map"]').getAttribute('data-renderer') === 'canvas'`)
	hover := hoverPoint(t, ctx, "map", loadTerm)
	t.Logf("10,000-point explorer, canvas: hover to tooltip %v", hover.Round(time.Millisecond))
	if hover > 5*time.Second {
		t.Errorf("hover tooltip took %v, want ≤ 5 s", hover)
	}
}

// TestMapServing checks the cached-map answers: the fast path (a repeated
// request) gives the same bytes as the first, gzip only when accepted (RFC 9110
// q=0 refuses it), explicit Content-Length, ETag revalidation with 304, and the
// fast path forgets a map when its model is deleted.
func TestMapServing(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	putSyntheticMap(t, ts, modelID, corpusID)
	// The synthetic map carries its topics: it is served as stored
	// (TestStoredMapTopics covers the maps stored without them).
	want, err := json.Marshal(syntheticMap(10000, loadTerm, 1))
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/models/" + modelID + "/map?term=" + loadTerm
	get := func(hdr ...string) *httptest.ResponseRecorder {
		req := newRequest(http.MethodGet, path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		return httptestRecorder(ts, req)
	}
	for i := 0; i < 2; i++ { // slow path, then fast path
		rec := get()
		if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), want) {
			t.Fatalf("request %d identity: status %d, %d bytes, want 200 and the stored %d bytes", i, rec.Code, rec.Body.Len(), len(want))
		}
		if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
			t.Errorf("request %d: Content-Length %q, want %d", i, got, len(want))
		}
		if rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("request %d: identity answer has Content-Encoding %q", i, rec.Header().Get("Content-Encoding"))
		}
	}
	for _, tt := range []struct {
		accept string
		gz     bool
	}{{"gzip", true}, {"br, gzip;q=0.5", true}, {"*", true}, {"gzip;q=0", false}, {"gzip; q=0.000, br", false}, {"deflate", false}} {
		rec := get("Accept-Encoding", tt.accept)
		body := rec.Body.Bytes()
		if tt.gz {
			if rec.Header().Get("Content-Encoding") != "gzip" {
				t.Fatalf("Accept-Encoding %q: got Content-Encoding %q, want gzip", tt.accept, rec.Header().Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, want) {
			t.Errorf("Accept-Encoding %q: body differs from the stored map", tt.accept)
		}
	}
	etag := get().Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	for _, inm := range []string{etag, `"other", W/` + etag, "*"} {
		if rec := get("If-None-Match", inm); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("If-None-Match %s: got %d with %d bytes, want 304 and no body", inm, rec.Code, rec.Body.Len())
		}
	}
	if rec := get("If-None-Match", `"other"`); rec.Code != 200 {
		t.Errorf("If-None-Match other: got %d, want 200", rec.Code)
	}
	// The fast path must not outlive the model.
	ts.maps.dropModel(modelID)
	if e := ts.maps.lookup(modelID + "\x00siamese-ce\x00\x00" + loadTerm); e != nil {
		t.Error("fast-path entry survives dropModel")
	}
}

// wrkScript makes wrk print p95 (its --latency table stops at 90 and 99) and
// the error counts.
const wrkScript = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("wrk: %d requests, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms; errors connect %d read %d write %d status %d timeout %d\n",
    summary.requests, latency:percentile(50)/1000, latency:percentile(95)/1000, latency:percentile(99)/1000, latency.max/1000,
    e.connect, e.read, e.write, e.status, e.timeout))
end
`

// runWrk measures target with wrk (Debian's package; TAGLENS_WRK=1), 2
// threads and conns connections asking for gzip, for an independent figure.
// The target is this test's loopback server.
func runWrk(t *testing.T, target string, secs, conns int) {
	if !strings.HasPrefix(target, "http://127.0.0.1:") {
		t.Fatalf("wrk target %q is not on loopback", target)
	}
	bin, err := exec.LookPath("wrk")
	if err != nil {
		t.Logf("wrk not installed (apt-get install wrk): %v", err)
		return
	}
	script := filepath.Join(t.TempDir(), "p95.lua")
	if err := os.WriteFile(script, []byte(wrkScript), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-t2", fmt.Sprintf("-c%d", conns), fmt.Sprintf("-d%ds", secs), "-s", script,
		"-H", "Accept-Encoding: gzip", target).CombinedOutput()
	if err != nil {
		t.Fatalf("wrk: %v\n%s", err, out)
	}
	t.Logf("wrk, 2 threads, %d connections, gzip, %d s (load average after: %s):\n%s", conns, secs, loadAverage(), out)
	if strings.Contains(string(out), "Non-2xx") {
		t.Errorf("wrk saw non-2xx answers")
	}
}

// loadAverage is the 1, 5 and 15-minute load average of Linux (/proc/loadavg),
// or "unknown": latency figures mean little without it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
