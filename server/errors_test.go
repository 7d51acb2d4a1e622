package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

// TestErrStatus: every error kind maps to its status and message, also when
// it is wrapped; an error of no kind is a 500 that says nothing of it.
func TestErrStatus(t *testing.T) {
	for _, tc := range []struct {
		err   error
		code  int
		msg   string
		known bool
	}{
		{app.BadInput("limit", "must be an integer in 1..1000"), 400, "limit must be an integer in 1..1000", true},
		{app.BadInput("name", "is longer than 200 bytes"), 400, "name is longer than 200 bytes", true},
		{app.BadInput("variant", "unknown"), 400, "variant: unknown", true},
		{app.BadInput("", "bad JSON body: EOF"), 400, "bad JSON body: EOF", true},
		{app.NotFound("corpus", "c0ffee"), 404, `corpus "c0ffee" not found`, true},
		{&app.NotFoundError{What: "term", ID: "x", Reason: `term "x" is not in the model's vocabulary`}, 404, `term "x" is not in the model's vocabulary`, true},
		{store.ErrNotFound, 404, "not found", true},
		{fmt.Errorf("model m1: %w", store.ErrNotFound), 404, "not found", true},
		{app.Conflict("model %q is training", "m1"), 409, `model "m1" is training`, true},
		{app.TooLarge("tags: %d tags, at most %d in one request", 3, 2), 413, "tags: 3 tags, at most 2 in one request", true},
		{&http.MaxBytesError{Limit: 10}, 413, "upload too large: the limit is 10 bytes", true},
		{app.Unplaceable(errors.New("no tag is in the vocabulary")), 422, "no tag is in the vocabulary", true},
		{&app.MapError{Reason: "the vocabulary is too small"}, 422, "the vocabulary is too small", true},
		{&jobs.QueueFullError{Kind: "train", Queued: 2, Limit: 2}, 429, (&jobs.QueueFullError{Kind: "train", Queued: 2, Limit: 2}).Error(), true},
		{jobs.ErrShutdown, 503, "the server is shutting down", true},
		{refusal(refusedHost, "host %q is not allowed", "evil"), 403, `host "evil" is not allowed`, true},
		{refusal(refusedToken, "no token"), 401, "no token", true},
		{refusal(refusedCrossSite, "cross-site"), 403, "cross-site", true},
		{refusal(refusedCSRF, "csrf"), 403, "csrf", true},
		{refusal(refusedMediaType, "not JSON"), 415, "not JSON", true},
		{refusal(refusedTooLarge, "too large"), 413, "too large", true},
		{echo.ErrNotFound, 404, "Not Found", true},
		{echo.ErrMethodNotAllowed, 405, "Method Not Allowed", true},
		{errors.New("disk on fire"), 500, "internal server error", false},
	} {
		code, msg, known := errStatus(tc.err)
		if code != tc.code || msg != tc.msg || known != tc.known {
			t.Errorf("%T %v: %d %q %v, want %d %q %v", tc.err, tc.err, code, msg, known, tc.code, tc.msg, tc.known)
		}
	}
	// A wrapped kind keeps its status; the message is the whole error's.
	wrapped := fmt.Errorf("seed group %q holds 1 of the 2 models; the next was refused: %w", "g1", &jobs.QueueFullError{Kind: "train", Queued: 2, Limit: 2})
	if code, msg, _ := errStatus(wrapped); code != 429 || msg != wrapped.Error() {
		t.Errorf("a wrapped full queue: %d %q", code, msg)
	}
	// formError: only the input's faults are shown in a form.
	for _, err := range []error{app.BadInput("k", "must be 1"), app.NotFound("model", "m"), app.Conflict("busy"), app.TooLarge("big"), app.Unplaceable(errors.New("no")), store.ErrNotFound} {
		if _, _, ok := formError(err); !ok {
			t.Errorf("formError(%v) is not a form's error", err)
		}
	}
	for _, err := range []error{&jobs.QueueFullError{}, refusal(refusedCSRF, "csrf"), errors.New("x"), echo.ErrNotFound} {
		if _, _, ok := formError(err); ok {
			t.Errorf("formError(%v) is a form's error", err)
		}
	}
}

// TestErrorKindsMatch: each kind matches its sentinel with errors.Is and no
// other, and its type with errors.As, wrapped or not.
func TestErrorKindsMatch(t *testing.T) {
	sentinels := []error{app.ErrInput, app.ErrNotFound, app.ErrConflict, app.ErrTooLarge, app.ErrUnplaceable}
	for i, err := range []error{app.BadInput("f", "r"), app.NotFound("w", "i"), app.Conflict("c"), app.TooLarge("t"), app.Unplaceable(errors.New("u"))} {
		for j, s := range sentinels {
			if got := errors.Is(fmt.Errorf("wrapped: %w", err), s); got != (i == j) {
				t.Errorf("errors.Is(%T, %v) = %v", err, s, got)
			}
		}
	}
	var ie *app.InputError
	if !errors.As(fmt.Errorf("x: %w", app.BadInput("k", "must be 1")), &ie) || ie.Field != "k" {
		t.Errorf("errors.As InputError: %v", ie)
	}
	if !errors.Is(&app.MapError{Reason: "r"}, app.ErrUnplaceable) {
		t.Error("a MapError is not unplaceable")
	}
	if !errors.Is(&notComputedError{}, app.ErrNotFound) {
		t.Error("a map not computed is not a not-found")
	}
}

// TestErrorHandlerBodies: the one handler answers each kind with its status
// and the API's body, {"error": "..."} and a newline, byte for byte; a page
// with the error page; htmx with an error box, 200 and X-Status; a map not
// computed with its own body.
func TestErrorHandlerBodies(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	e := echo.New()
	answer := func(err error, path string, htmx bool) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		rec := httptest.NewRecorder()
		s.errorHandler(err, e.NewContext(req, rec))
		return rec
	}
	for _, tc := range []struct {
		err  error
		code int
		body string
	}{
		{app.BadInput("k", "must be an integer in 1..100"), 400, `{"error":"k must be an integer in 1..100"}` + "\n"},
		{app.NotFound("corpus", "c0ffee"), 404, `{"error":"corpus \"c0ffee\" not found"}` + "\n"},
		{app.Conflict("job %q has already finished (done)", "j1"), 409, `{"error":"job \"j1\" has already finished (done)"}` + "\n"},
		{app.TooLarge("split file larger than 10 bytes"), 413, `{"error":"split file larger than 10 bytes"}` + "\n"},
		{app.Unplaceable(errors.New("no tag")), 422, `{"error":"no tag"}` + "\n"},
		{refusal(refusedMediaType, "not JSON"), 415, `{"error":"not JSON"}` + "\n"},
		{errors.New("secret detail"), 500, `{"error":"internal server error"}` + "\n"},
	} {
		rec := answer(tc.err, "/api/x", false)
		if rec.Code != tc.code || rec.Body.String() != tc.body {
			t.Errorf("API %v: %d %q, want %d %q", tc.err, rec.Code, rec.Body, tc.code, tc.body)
		}
		page := answer(tc.err, "/corpora/x", false)
		if page.Code != tc.code || !strings.Contains(page.Body.String(), "<h1>"+http.StatusText(tc.code)) {
			t.Errorf("page %v: %d %.200s, want %d and the error page", tc.err, page.Code, page.Body, tc.code)
		}
		box := answer(tc.err, "/corpora/x", true)
		if box.Code != http.StatusOK || box.Header().Get("X-Status") != fmt.Sprint(tc.code) {
			t.Errorf("htmx %v: %d X-Status %q, want 200 and %d", tc.err, box.Code, box.Header().Get("X-Status"), tc.code)
		}
	}
	rec := answer(&jobs.QueueFullError{Kind: "train", Queued: 1, Limit: 1}, "/api/models", false)
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "30" {
		t.Errorf("a full queue: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	nc := &notComputedError{mapStateJSON{Error: "the map of x is not computed", State: stateNotComputed,
		Compute: computeJSON{Method: "POST", URL: "/api/models/m/map", Body: map[string]string{"term": "x"}}}}
	rec = answer(nc, "/api/models/m/map", false)
	want := `{"error":"the map of x is not computed","state":"not-computed","compute":{"method":"POST","url":"/api/models/m/map","body":{"term":"x"}}}` + "\n"
	if rec.Code != 404 || rec.Body.String() != want {
		t.Errorf("a map not computed: %d %s, want 404 %s", rec.Code, rec.Body, want)
	}
}

// TestErrorKindsThroughRoutes: one error of each kind, returned by a real
// route's use case, answered by the error handler with its status and body.
func TestErrorKindsThroughRoutes(t *testing.T) {
	ts, corpusID, modelID := trainedServer(t)
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		want                     string // the whole error message, or a part of it after "~"
	}{
		{"bad input", http.MethodPost, "/api/models/" + modelID + "/prime", `{"tags":["guitar"],"k":0}`, 400,
			fmt.Sprintf("k must be an integer in 1..%d, got 0", app.MaxPrimeK)},
		{"not found", http.MethodGet, "/api/corpora/c0ffee", "", 404, `corpus "c0ffee" not found`},
		{"conflict", http.MethodDelete, "/api/corpora/" + corpusID, "", 409, "~" + fmt.Sprintf("corpus %q is used by model", corpusID)},
		{"too large", http.MethodPost, "/api/models/" + modelID + "/embed", `{"tags":[` + strings.Repeat(`"a",`, maxEmbedTags) + `"a"]}`, 413,
			fmt.Sprintf("tags: %d tags, at most %d in one request", maxEmbedTags+1, maxEmbedTags)},
		{"unplaceable", http.MethodPost, "/api/models/" + modelID + "/prime", `{"tags":["zzqx-nonsense"]}`, 422, "~zzqx-nonsense"},
		{"refused", http.MethodPost, "/api/models", `{}`, 415, "~Content-Type: application/json"},
	} {
		var rec *httptest.ResponseRecorder
		switch {
		case tc.name == "refused":
			rec = ts.do(tc.method, tc.path, strings.NewReader(tc.body), "text/plain")
		case tc.body != "":
			rec = ts.doJSON(tc.method, tc.path, tc.body)
		default:
			rec = ts.do(tc.method, tc.path, nil, "")
		}
		if rec.Code != tc.code {
			t.Errorf("%s: %s %s: %d %s, want %d", tc.name, tc.method, tc.path, rec.Code, rec.Body, tc.code)
			continue
		}
		if part, ok := strings.CutPrefix(tc.want, "~"); ok {
			wantError(t, rec, tc.code, part)
			continue
		}
		if want := `{"error":` + fmt.Sprintf("%q", tc.want) + "}\n"; rec.Body.String() != want {
			t.Errorf("%s: body %q, want %q", tc.name, rec.Body, want)
		}
	}
	// A page's not-found: the error page with its status; with htmx, the
	// error box with 200 and the status in X-Status.
	rec := ts.do(http.MethodGet, "/corpora/c0ffee", nil, "")
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "corpus &#34;c0ffee&#34; not found") {
		t.Errorf("GET /corpora/c0ffee: %d %.300s", rec.Code, rec.Body)
	}
	req := newRequest(http.MethodGet, "/corpora/c0ffee", nil)
	req.Header.Set("HX-Request", "true")
	rec = httptestRecorder(ts, req)
	if rec.Code != 200 || rec.Header().Get("X-Status") != "404" {
		t.Errorf("htmx GET /corpora/c0ffee: %d, X-Status %q", rec.Code, rec.Header().Get("X-Status"))
	}
}
