package server

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// send makes a request with header pairs; the pseudo-header "Host" sets the
// Host (default testHost).
func (ts *testServer) send(method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	ts.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := newRequest(method, path, r)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Add(hdr[i], hdr[i+1])
	}
	return httptestRecorder(ts, req)
}

// wantJSONError checks a refusal under /api/: status and a JSON error naming want.
func wantJSONError(t *testing.T, rec *httptest.ResponseRecorder, status int, want ...string) {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want JSON (body %s)", ct, rec.Body)
	}
	wantError(t, rec, status, "")
	e := decode[map[string]string](t, rec)
	for _, w := range want {
		if !strings.Contains(e["error"], w) {
			t.Errorf("error %q does not name %q", e["error"], w)
		}
	}
}

func TestHostAllowList(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		host  string
		path  string
		want  int
		names []string // in the refusal
	}{
		{"127.0.0.1 with port", Config{}, "127.0.0.1:8080", "/api/corpora", 200, nil},
		{"127.0.0.1 another port", Config{}, "127.0.0.1:9000", "/api/corpora", 200, nil},
		{"localhost", Config{}, "localhost:8080", "/api/corpora", 200, nil},
		{"localhost upper case, trailing dot", Config{}, "LOCALHOST.:8080", "/api/corpora", 200, nil},
		{"::1 bracketed with port", Config{}, "[::1]:8080", "/api/corpora", 200, nil},
		{"::1 bracketed", Config{}, "[::1]", "/api/corpora", 200, nil},
		{"::1 bare", Config{}, "::1", "/api/corpora", 200, nil},
		{"other loopback address", Config{}, "127.0.0.2:8080", "/api/corpora", 200, nil},
		{"page on localhost", Config{}, "localhost:8080", "/", 200, nil},
		{"rebinding name, API", Config{}, "evil.example:8080", "/api/corpora", 403, []string{`"evil.example"`, "--allow-host evil.example"}},
		{"rebinding name, page", Config{}, "evil.example", "/", 403, []string{"evil.example", "--allow-host evil.example"}},
		{"rebinding name, static", Config{}, "evil.example", "/static/js/app.js", 403, nil},
		{"name ending in localhost", Config{}, "localhost.evil.example", "/api/corpora", 403, nil},
		{"no Host", Config{}, "", "/api/corpora", 403, []string{"no Host"}},
		{"allowed extra host", Config{AllowHosts: []string{"Taglens.LAN"}}, "taglens.lan:8080", "/api/corpora", 200, nil},
		{"allowed extra host with port given", Config{AllowHosts: []string{"box.lan:8080"}}, "box.lan", "/", 200, nil},
		{"allowed extra address", Config{AllowHosts: []string{"10.1.2.3"}}, "10.1.2.3:8080", "/api/corpora", 200, nil},
		{"other name with extras", Config{AllowHosts: []string{"taglens.lan"}}, "other.lan", "/api/corpora", 403, []string{"other.lan"}},
		{"bound address", Config{Addr: "192.0.2.10:8080", Token: "0123456789abcdefXYZ"}, "192.0.2.10:8080", "/api/corpora", 200, nil},
		{"bound name", Config{Addr: "box.example:8080", Token: "0123456789abcdefXYZ"}, "box.example:8080", "/api/corpora", 200, nil},
		{"other address than bound", Config{Addr: "192.0.2.10:8080", Token: "0123456789abcdefXYZ"}, "192.0.2.11:8080", "/api/corpora", 403, []string{"192.0.2.11"}},
		{"all addresses: a foreign one", Config{Addr: "0.0.0.0:8080", Token: "0123456789abcdefXYZ"}, "203.0.113.9:8080", "/api/corpora", 403, nil},
		{"all addresses: a name", Config{Addr: ":8080", Token: "0123456789abcdefXYZ"}, "evil.example:8080", "/api/corpora", 403, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, tt.cfg)
			rec := ts.send(http.MethodGet, tt.path, "", "Host", tt.host, "Authorization", "Bearer 0123456789abcdefXYZ")
			if rec.Code != tt.want {
				t.Fatalf("GET %s with Host %q: got %d, want %d (%s)", tt.path, tt.host, rec.Code, tt.want, rec.Body)
			}
			if tt.want != 403 {
				return
			}
			if strings.HasPrefix(tt.path, "/api/") {
				wantJSONError(t, rec, 403, tt.names...)
				return
			}
			body := rec.Body.String()
			if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || strings.Contains(body, "/static/") {
				t.Errorf("page refusal: want a self-contained HTML page, got %q: %s", rec.Header().Get("Content-Type"), body)
			}
			for _, n := range tt.names {
				if !strings.Contains(body, n) {
					t.Errorf("page refusal does not name %q: %s", n, body)
				}
			}
		})
	}
}

// On an all-addresses bind this machine's own addresses are accepted (an IP
// literal cannot be a rebound name), found among the interfaces.
func TestHostAllowListLocalAddress(t *testing.T) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	local := ""
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			local = n.IP.String()
			break
		}
	}
	if local == "" {
		t.Skip("no non-loopback IPv4 address on this machine")
	}
	ts := newTestServer(t, Config{Addr: "0.0.0.0:8080", Token: "0123456789abcdefXYZ"})
	if rec := ts.send(http.MethodGet, "/api/corpora", "", "Host", local+":8080", "Authorization", "Bearer 0123456789abcdefXYZ"); rec.Code != 200 {
		t.Errorf("Host %s (this machine): got %d, want 200 (%s)", local, rec.Code, rec.Body)
	}
	ts = newTestServer(t, Config{Addr: "127.0.0.1:8080"})
	if rec := ts.send(http.MethodGet, "/api/corpora", "", "Host", local+":8080"); rec.Code != 403 {
		t.Errorf("loopback bind, Host %s: got %d, want 403", local, rec.Code)
	}
}

// A refused host name is shown as text, never as markup.
func TestHostRefusalEscapes(t *testing.T) {
	ts := newTestServer(t, Config{})
	rec := ts.send(http.MethodGet, "/", "", "Host", `<img src=x onerror=alert(1)>`)
	if rec.Code != 403 || strings.Contains(rec.Body.String(), "<img") || !strings.Contains(rec.Body.String(), "&lt;img") {
		t.Errorf("got %d %s, want 403 with the name escaped", rec.Code, rec.Body)
	}
}

func TestCrossSiteRefused(t *testing.T) {
	const body = `{"corpus_id":"nosuch"}` // reaching the handler answers 404
	tests := []struct {
		name string
		cfg  Config
		hdr  []string
		want int
	}{
		{"curl: no Origin, no Sec-Fetch-Site", Config{}, nil, 404},
		{"same origin", Config{}, []string{"Origin", "http://127.0.0.1:8080", "Sec-Fetch-Site", "same-origin"}, 404},
		{"same origin, Origin only", Config{}, []string{"Origin", "http://127.0.0.1:8080"}, 404},
		{"typed by the user", Config{}, []string{"Sec-Fetch-Site", "none"}, 404},
		{"reverse proxy's name allowed", Config{AllowHosts: []string{"taglens.example"}}, []string{"Origin", "https://taglens.example", "Sec-Fetch-Site", "same-origin"}, 404},
		{"Host without port, Origin with default port", Config{}, []string{"Host", "localhost", "Origin", "http://localhost"}, 404},
		{"foreign Origin", Config{}, []string{"Origin", "http://evil.example"}, 403},
		{"foreign Origin, same-origin claimed", Config{}, []string{"Origin", "http://evil.example", "Sec-Fetch-Site", "same-origin"}, 403},
		{"other port of localhost", Config{}, []string{"Host", "localhost:8080", "Origin", "http://localhost:9999", "Sec-Fetch-Site", "same-site"}, 403},
		{"other loopback name", Config{}, []string{"Origin", "http://localhost:8080"}, 403},
		{"https Origin, same host and port", Config{}, []string{"Origin", "https://127.0.0.1"}, 403},
		{"Host without port, Origin with another port", Config{}, []string{"Host", "localhost", "Origin", "http://localhost:8080"}, 403},
		{"opaque Origin", Config{}, []string{"Origin", "null"}, 403},
		{"malformed Origin", Config{}, []string{"Origin", "127.0.0.1:8080"}, 403},
		{"Sec-Fetch-Site cross-site", Config{}, []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"Sec-Fetch-Site cross-site with own Origin", Config{}, []string{"Sec-Fetch-Site", "cross-site", "Origin", "http://127.0.0.1:8080"}, 403},
		{"Sec-Fetch-Site same-site without Origin", Config{}, []string{"Sec-Fetch-Site", "same-site"}, 403},
		{"allowed host is not a wildcard", Config{AllowHosts: []string{"taglens.example"}}, []string{"Origin", "https://evil.example"}, 403},
		{"own Referer", Config{}, []string{"Referer", "http://127.0.0.1:8080/train?corpus=x"}, 404},
		{"foreign Referer, no Origin or Sec-Fetch-Site", Config{}, []string{"Referer", "http://evil.example/attack.html"}, 403},
		{"Referer of another port", Config{}, []string{"Referer", "http://127.0.0.1:9999/"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, tt.cfg)
			hdr := append([]string{"Content-Type", "application/json"}, tt.hdr...)
			rec := ts.send(http.MethodPost, "/api/models", body, hdr...)
			if rec.Code != tt.want {
				t.Fatalf("got %d, want %d (%s)", rec.Code, tt.want, rec.Body)
			}
			if tt.want == 403 {
				wantJSONError(t, rec, 403, "cross-site request refused")
			}
		})
	}
}

// The attacks of the issue: a page on another site posting a training job as
// text/plain and uploading a corpus as a multipart form; neither is stored.
// Other methods and the page forms are covered too; reads are not refused.
func TestCrossSiteNothingStored(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	evil := []string{"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"}

	rec := ts.send(http.MethodPost, "/api/models", `{"corpus_id":"`+c.ID+`"}`, append([]string{"Content-Type", "text/plain"}, evil...)...)
	wantJSONError(t, rec, 403, "cross-site")
	body, ct := multipartBody(t, nil, "x.tsv", smallTSV())
	rec = ts.send(http.MethodPost, "/api/corpora", body.String(), append([]string{"Content-Type", ct}, evil...)...)
	wantJSONError(t, rec, 403, "cross-site")
	rec = ts.send(http.MethodDelete, "/api/corpora/"+c.ID, "", evil...)
	wantJSONError(t, rec, 403, "cross-site")
	ck, tok := ts.pageCSRF()
	form := url.Values{"csrf_token": {tok}, "corpus_id": {c.ID}}.Encode()
	rec = ts.send(http.MethodPost, "/train", form, append([]string{"Content-Type", "application/x-www-form-urlencoded", "Cookie", ck.String()}, evil...)...)
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), "cross-site") {
		t.Errorf("cross-site form POST with a valid token: got %d, want 403", rec.Code)
	}

	if ms := decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")); len(ms) != 0 {
		t.Errorf("after refused requests: %d models, want none", len(ms))
	}
	if cs := decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", "")); len(cs) != 1 {
		t.Errorf("after refused requests: %d corpora, want the one uploaded", len(cs))
	}
	// A safe method is not refused (the browser keeps the answer from the page).
	if rec := ts.send(http.MethodGet, "/api/corpora", "", evil...); rec.Code != 200 {
		t.Errorf("cross-site GET: got %d, want 200", rec.Code)
	}
}

// Every state-changing JSON API route refuses a body not declared as
// application/json with 415; the corpus upload keeps multipart.
func TestJSONContentType(t *testing.T) {
	ts := newTestServer(t, Config{})
	n := 0
	for _, r := range ts.echo.Routes() {
		if !strings.HasPrefix(r.Path, "/api/") || !unsafeMethod(r.Method) || strings.HasSuffix(r.Path, "*") {
			continue
		}
		path := strings.ReplaceAll(r.Path, ":id", "nosuch")
		if r.Method == http.MethodPost && r.Path == "/api/corpora" {
			rec := ts.send(r.Method, path, `{"name":"x"}`, "Content-Type", "application/json")
			wantJSONError(t, rec, 400, "multipart")
			continue
		}
		n++
		for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/jsonx", "application/json-seq", "not a type/"} {
			rec := ts.send(r.Method, path, `{"corpus_id":"x"}`, "Content-Type", ct)
			if rec.Code != http.StatusUnsupportedMediaType {
				t.Errorf("%s %s with Content-Type %q: got %d, want 415", r.Method, r.Path, ct, rec.Code)
				continue
			}
			wantJSONError(t, rec, 415, "application/json")
		}
		for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
			if rec := ts.send(r.Method, path, `{}`, "Content-Type", ct); rec.Code == 415 || rec.Code == 403 {
				t.Errorf("%s %s with Content-Type %q: got %d, want the handler's answer", r.Method, r.Path, ct, rec.Code)
			}
		}
		// No body (htmx's restart and delete buttons, curl -X DELETE): no type needed.
		if rec := ts.send(r.Method, path, "", "Content-Type", "application/x-www-form-urlencoded"); rec.Code == 415 {
			t.Errorf("%s %s without a body: got 415", r.Method, r.Path)
		}
	}
	if n < 8 {
		t.Errorf("checked %d JSON routes, want the 8 or more of routes.go", n)
	}
}

// formPost posts a urlencoded form to path with an optional CSRF cookie and
// token (in the field or the header), as the same origin.
func (ts *testServer) formPost(path string, form url.Values, ck *http.Cookie, tok string, inHeader bool) *httptest.ResponseRecorder {
	ts.t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	hdr := []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", "http://" + testHost, "Sec-Fetch-Site", "same-origin"}
	if tok != "" && inHeader {
		hdr = append(hdr, "X-CSRF-Token", tok)
	} else if tok != "" {
		f.Set("csrf_token", tok)
	}
	if ck != nil {
		hdr = append(hdr, "Cookie", ck.String())
	}
	return ts.send(http.MethodPost, path, f.Encode(), hdr...)
}

func TestCSRFForms(t *testing.T) {
	ts := newTestServer(t, Config{})
	other := newTestServer(t, Config{}) // another server: another secret
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	ck, tok := ts.pageCSRF()
	ck2, tok2 := ts.pageCSRF()
	_, otherTok := other.pageCSRF()
	planted := &http.Cookie{Name: csrfCookieName, Value: "AAAAAAAAAAAAAAAAAAAAAA"} // an attacker's known value
	train := url.Values{"corpus_id": {c.ID}, "seed": {"1"}, "hidden": {"8,4"}, "max_epochs1": {"1"}, "max_epochs2": {"1"}}
	compare := url.Values{"model_ids": {"nosuch"}, "setting": {"within-corpus"}} // reaching the handler: 404
	tests := []struct {
		name     string
		path     string
		form     url.Values
		ck       *http.Cookie
		tok      string
		inHeader bool
		want     int
	}{
		{"no cookie, no token", "/train", train, nil, "", false, 403},
		{"cookie, no token", "/train", train, ck, "", false, 403},
		{"token, no cookie", "/train", train, nil, tok, false, 403},
		{"token of another cookie", "/train", train, ck, tok2, false, 403},
		{"token of another server", "/train", train, ck, otherTok, false, 403},
		{"planted cookie, guessed token", "/train", train, planted, tok, false, 403},
		{"token changed", "/train", train, ck, mutated(tok), false, 403},
		{"compare without token", "/compare", compare, ck, "", false, 403},
		{"valid token in the field", "/train", train, ck, tok, false, 303},
		{"valid token in the header", "/train", train, ck2, tok2, true, 303},
		{"compare with token", "/compare", compare, ck, tok, false, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.formPost(tt.path, tt.form, tt.ck, tt.tok, tt.inHeader)
			if rec.Code != tt.want {
				t.Fatalf("got %d, want %d (%s)", rec.Code, tt.want, rec.Body)
			}
			if tt.want == 403 && !strings.Contains(rec.Body.String(), "CSRF token") {
				t.Errorf("refusal does not explain: %s", rec.Body)
			}
		})
	}
	if ms := decode[[]modelJSON](t, ts.doJSON(http.MethodGet, "/api/models", "")); len(ms) != 2 {
		t.Errorf("models: got %d, want the 2 of the accepted forms", len(ms))
	}
	// htmx's fragment for a refusal is an error box (status in X-Status).
	rec := ts.send(http.MethodPost, "/train", train.Encode(), "Content-Type", "application/x-www-form-urlencoded", "HX-Request", "true", "Cookie", ck.String())
	if rec.Header().Get("X-Status") != "403" || !strings.Contains(rec.Body.String(), `data-testid="error"`) {
		t.Errorf("htmx refusal: X-Status %q, body %s", rec.Header().Get("X-Status"), rec.Body)
	}
	// The JSON API needs no token: a cross-site page cannot send JSON.
	if rec := ts.doJSON(http.MethodPost, "/api/models", `{"corpus_id":"nosuch"}`); rec.Code != 404 {
		t.Errorf("JSON API without a CSRF token: got %d, want 404 from the handler", rec.Code)
	}
	for _, j := range decode[[]map[string]any](t, ts.doJSON(http.MethodGet, "/api/jobs", "")) {
		ts.doJSON(http.MethodDelete, "/api/jobs/"+j["id"].(string), "")
	}
}

// The upload form streams its file: its token comes in the header (htmx) or as
// the csrf_token part before the file (a form without JavaScript).
func TestCSRFUpload(t *testing.T) {
	ts := newTestServer(t, Config{})
	ck, tok := ts.pageCSRF()
	tests := []struct {
		name   string
		fields [][2]string
		header string
		cookie bool
		want   int
	}{
		{"header", nil, tok, true, 303},
		{"field before the file", [][2]string{{"csrf_token", tok}, {"name", "x"}}, "", true, 303},
		{"field after a name field", [][2]string{{"name", "y"}, {"csrf_token", tok}}, "", true, 303},
		{"no token", [][2]string{{"name", "x"}}, "", true, 403},
		{"wrong field", [][2]string{{"csrf_token", "nope"}}, "", true, 403},
		{"wrong header, right field", [][2]string{{"csrf_token", tok}}, "nope", true, 403},
		{"no cookie", [][2]string{{"csrf_token", tok}}, "", false, 403},
	}
	stored := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, ct := multipartBody(t, tt.fields, "c.tsv", smallTSV())
			hdr := []string{"Content-Type", ct, "Origin", "http://" + testHost}
			if tt.header != "" {
				hdr = append(hdr, "X-CSRF-Token", tt.header)
			}
			if tt.cookie {
				hdr = append(hdr, "Cookie", ck.String())
			}
			rec := ts.send(http.MethodPost, "/corpora", body.String(), hdr...)
			if rec.Code != tt.want {
				t.Fatalf("got %d, want %d (%s)", rec.Code, tt.want, rec.Body)
			}
			if rec.Code == 303 {
				stored++
			}
		})
	}
	// A token after the file part comes too late: the file is parsed as it arrives.
	var buf bytes.Buffer
	body, ct := multipartBody(t, nil, "c.tsv", smallTSV())
	buf.Write(bytes.TrimSuffix(body.Bytes(), []byte("--"+ct[strings.Index(ct, "boundary=")+9:]+"--\r\n")))
	buf.WriteString("--" + ct[strings.Index(ct, "boundary=")+9:] + "\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n" + tok + "\r\n")
	buf.WriteString("--" + ct[strings.Index(ct, "boundary=")+9:] + "--\r\n")
	if rec := ts.send(http.MethodPost, "/corpora", buf.String(), "Content-Type", ct, "Cookie", ck.String()); rec.Code != 403 {
		t.Errorf("token after the file: got %d, want 403 (%s)", rec.Code, rec.Body)
	}
	if cs := decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", "")); len(cs) != stored {
		t.Errorf("corpora: got %d, want %d (only the accepted uploads)", len(cs), stored)
	}
}

// Every page's POST forms carry the token first, htmx sends it from <body>,
// and the cookie is HttpOnly, Lax, kept while valid and replaced when not.
func TestCSRFRendered(t *testing.T) {
	ts := newTestServer(t, Config{})
	decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV())) // the train page shows its form
	ck, tok := ts.pageCSRF()
	for _, p := range []string{"/corpora", "/train", "/compare"} {
		rec := ts.send(http.MethodGet, p, "", "Cookie", ck.String())
		if len(rec.Result().Cookies()) != 0 {
			t.Errorf("%s: a valid cookie was replaced", p)
		}
		doc, err := goquery.NewDocumentFromReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		forms := doc.Find(`form[method="post"]`)
		if forms.Length() != 1 {
			t.Errorf("%s: %d POST forms, want 1", p, forms.Length())
		}
		forms.Each(func(_ int, f *goquery.Selection) {
			first := f.Find("input").First()
			if n, _ := first.Attr("name"); n != "csrf_token" || first.AttrOr("type", "") != "hidden" || first.AttrOr("value", "") != tok {
				t.Errorf("%s: the form's first input is %v, want the hidden csrf_token %q", p, first.Nodes, tok)
			}
		})
		if h := doc.Find("body").AttrOr("hx-headers", ""); h != `{"X-CSRF-Token":"`+tok+`"}` {
			t.Errorf("%s: body hx-headers %q", p, h)
		}
	}
	rec := ts.send(http.MethodGet, "/", "")
	cks := rec.Result().Cookies()
	if len(cks) != 1 || !cks[0].HttpOnly || cks[0].SameSite != http.SameSiteLaxMode || cks[0].Path != "/" {
		t.Errorf("new CSRF cookie: %+v, want one HttpOnly, SameSite=Lax, Path=/", cks)
	}
	rec = ts.send(http.MethodGet, "/", "", "Cookie", csrfCookieName+"=not-ours")
	if cks := rec.Result().Cookies(); len(cks) != 1 || cks[0].Value == "not-ours" {
		t.Errorf("malformed CSRF cookie: got %+v, want it replaced", cks)
	}
	if rec := ts.send(http.MethodGet, "/api/corpora", ""); len(rec.Result().Cookies()) != 0 {
		t.Error("the API set a cookie")
	}
}
