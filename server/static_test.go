package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/taglens/taglens/static"
)

// TestFavicon: the browser's automatic /favicon.ico request finds an image,
// and every page links the icon.
func TestFavicon(t *testing.T) {
	ts := newTestServer(t, Config{})
	rec := ts.do(http.MethodGet, "/favicon.ico", nil, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /favicon.ico: status %d, want 200", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "image/") {
		t.Errorf("GET /favicon.ico: Content-Type %q, want an image type", ct)
	}
	if !bytes.Contains(rec.Body.Bytes(), []byte("<svg")) {
		t.Errorf("GET /favicon.ico: body %q is not the SVG icon", rec.Body.String())
	}
	doc, _ := ts.page("/")
	href, ok := doc.Find(`link[rel="icon"]`).Attr("href")
	if !ok {
		t.Fatal("the layout has no <link rel=\"icon\">")
	}
	if rec := ts.do(http.MethodGet, href, nil, ""); rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "image/") {
		t.Errorf("GET %s (the linked icon): status %d, Content-Type %q", href, rec.Code, rec.Header().Get("Content-Type"))
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}

// TestStaticGzip: a request accepting gzip gets the asset compressed (once,
// then from the cache), a request without Accept-Encoding gets the original
// bytes; both carry Vary and ETags (the identity one the sha256 of the
// content), and If-None-Match answers 304.
// Kept in one function: the requests check one asset's responses in sequence,
// the later ones using the ETags of the earlier ones.
func TestStaticGzip(t *testing.T) {
	const path = "/static/vendor/echarts.min.js"
	orig, err := fs.ReadFile(static.FS, "vendor/echarts.min.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(orig)
	wantETag := `"` + hex.EncodeToString(sum[:]) + `"`
	ts := newTestServer(t, Config{})
	get := func(hdr map[string]string) *httptest.ResponseRecorder {
		req := newRequest(http.MethodGet, path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return httptestRecorder(ts, req)
	}

	gz := get(map[string]string{"Accept-Encoding": "gzip, deflate, br"})
	if gz.Code != 200 || gz.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip request: status %d, Content-Encoding %q, want 200 gzip", gz.Code, gz.Header().Get("Content-Encoding"))
	}
	if gz.Body.Len() > len(orig)/2 {
		t.Errorf("gzip body: %d bytes of %d, want it compressed", gz.Body.Len(), len(orig))
	}
	if !bytes.Equal(gunzip(t, gz.Body.Bytes()), orig) {
		t.Error("the gzip body does not decompress to the asset")
	}
	if !strings.Contains(gz.Header().Get("Vary"), "Accept-Encoding") {
		t.Errorf("gzip response: Vary %q, want Accept-Encoding", gz.Header().Get("Vary"))
	}
	if ct := gz.Header().Get("Content-Type"); !strings.Contains(ct, "javascript") {
		t.Errorf("gzip response: Content-Type %q, want JavaScript", ct)
	}
	gzTag := gz.Header().Get("ETag")
	if gzTag == "" || gzTag == wantETag {
		t.Errorf("gzip ETag %q: want one distinct from the identity ETag %s", gzTag, wantETag)
	}

	id := get(nil)
	if id.Code != 200 || id.Header().Get("Content-Encoding") != "" || !bytes.Equal(id.Body.Bytes(), orig) {
		t.Fatalf("identity request: status %d, Content-Encoding %q, %d bytes; want the original %d bytes", id.Code, id.Header().Get("Content-Encoding"), id.Body.Len(), len(orig))
	}
	if got := id.Header().Get("ETag"); got != wantETag {
		t.Errorf("identity ETag: got %q, want %s (sha256 of the content)", got, wantETag)
	}
	if !strings.Contains(id.Header().Get("Vary"), "Accept-Encoding") {
		t.Errorf("identity response: Vary %q, want Accept-Encoding", id.Header().Get("Vary"))
	}
	if q := get(map[string]string{"Accept-Encoding": "gzip;q=0, identity"}); q.Header().Get("Content-Encoding") != "" {
		t.Error("gzip;q=0: got a gzip body, want identity")
	}

	for _, c := range []struct {
		name string
		hdr  map[string]string
	}{
		{"identity", map[string]string{"If-None-Match": wantETag}},
		{"gzip", map[string]string{"If-None-Match": gzTag, "Accept-Encoding": "gzip"}},
	} {
		nm := get(c.hdr)
		if nm.Code != http.StatusNotModified || nm.Body.Len() != 0 {
			t.Errorf("%s If-None-Match: status %d with %d bytes, want 304 and no body", c.name, nm.Code, nm.Body.Len())
		}
	}
	if nm := get(map[string]string{"If-None-Match": `"something-else"`}); nm.Code != 200 {
		t.Errorf("stale If-None-Match: status %d, want 200", nm.Code)
	}

	// The compressed copy is made once per asset and then reused.
	h := staticHandler(static.FS)
	for i := 0; i < 3; i++ {
		req := newRequest(http.MethodGet, "/static/vendor/htmx.min.js", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		if err := h.serve(rec, req, "vendor/htmx.min.js"); err != nil {
			t.Fatal(err)
		}
		if rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("htmx.min.js request %d: not gzip", i)
		}
	}
	if n := h.compressions.Load(); n != 1 {
		t.Errorf("3 gzip requests of one asset compressed it %d times, want once", n)
	}
}

// TestStaticNotFound: a missing asset is answered by the error handler as the
// other missing pages are: 404 with the error page (its title and error box).
func TestStaticNotFound(t *testing.T) {
	ts := newTestServer(t, Config{})
	shape := func(path string) (ctype, title string, box bool) {
		t.Helper()
		rec := ts.do(http.MethodGet, path, nil, "")
		if rec.Code != http.StatusNotFound {
			t.Fatalf("GET %s: status %d, want 404", path, rec.Code)
		}
		doc, err := goquery.NewDocumentFromReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		return rec.Header().Get("Content-Type"), strings.TrimSpace(doc.Find("h1").Text()), testid(doc, "error").Length() == 1
	}
	wantType, wantTitle, wantBox := shape("/groups/nosuch")
	if wantTitle != http.StatusText(http.StatusNotFound) || !wantBox {
		t.Fatalf("GET /groups/nosuch: title %q, error box %v", wantTitle, wantBox)
	}
	for _, path := range []string{"/static/nosuch.js", "/static/vendor/", "/static/vendor", "/no/such/page"} {
		if ctype, title, box := shape(path); ctype != wantType || title != wantTitle || !box {
			t.Errorf("GET %s: Content-Type %q, title %q, error box %v; want %q, %q and a box as a missing group's", path, ctype, title, box, wantType, wantTitle)
		}
	}
}
