package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/taglens/taglens/server/store"
)

const testToken = "s3cret-Token-for-tests-0123"

// syncBuf is a log sink safe for the server's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mutated is tok with its first character changed.
func mutated(tok string) string {
	if tok[0] == 'A' {
		return "B" + tok[1:]
	}
	return "A" + tok[1:]
}

// TestAccessToken checks the access token of a server reachable from other
// machines: generated or given, presented as a bearer header, a ?token= visit
// or the cookie that visit sets, and never logged.
func TestAccessToken(t *testing.T) {
	var logBuf syncBuf
	open := func(cfg Config) *testServer { return openTokenServer(t, &logBuf, cfg) }

	public := open(Config{Addr: "0.0.0.0:8080"})
	gen := public.Token()
	if len(gen) < 40 || CheckToken(gen) != nil {
		t.Fatalf("generated token %q: want 32 random bytes in base64url", gen)
	}
	if other := open(Config{Addr: "0.0.0.0:8080"}).Token(); other == gen {
		t.Error("two servers generated the same token")
	}
	if tok := open(Config{}).Token(); tok != "" {
		t.Errorf("loopback without a token: Token() %q, want none", tok)
	}
	given := open(Config{Addr: "127.0.0.1:8080", Token: testToken})
	publicGiven := open(Config{Addr: "192.0.2.10:8080", Token: testToken})
	if publicGiven.Token() != testToken {
		t.Errorf("given token replaced by %q", publicGiven.Token())
	}
	loop := open(Config{})

	access := accessCookie(t, given)
	for _, tt := range accessTokenCases(public, given, publicGiven, loop, gen, access) {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodGet
			if strings.HasPrefix(tt.path, "/api/models") {
				method = http.MethodPost
			}
			rec := tt.ts.send(method, tt.path, "", tt.hdr...)
			if rec.Code != tt.want {
				t.Fatalf("got %d, want %d (%s)", rec.Code, tt.want, rec.Body)
			}
			if rec.Code == 401 {
				if rec.Header().Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
				if strings.HasPrefix(tt.path, "/api/") {
					wantJSONError(t, rec, 401, "token")
				} else if !strings.Contains(rec.Body.String(), "?token=") {
					t.Errorf("401 page does not say how to log in: %s", rec.Body)
				}
			}
		})
	}
	// A form POST authenticated by the bearer header needs no CSRF token.
	form := url.Values{"model_ids": {"nosuch"}, "setting": {"within-corpus"}}.Encode()
	if rec := given.send(http.MethodPost, "/compare", form, "Content-Type", "application/x-www-form-urlencoded", "Authorization", "Bearer "+testToken); rec.Code != 404 {
		t.Errorf("bearer form POST: got %d, want 404 from the handler", rec.Code)
	}
	// but one authenticated by the cookie does.
	if rec := given.send(http.MethodPost, "/compare", form, "Content-Type", "application/x-www-form-urlencoded", "Cookie", access.String()); rec.Code != 403 {
		t.Errorf("cookie form POST without CSRF token: got %d, want 403", rec.Code)
	}
	// The redirect stays on this server.
	rec := given.send(http.MethodGet, "//evil.example/x?token="+testToken, "")
	if loc := rec.Header().Get("Location"); rec.Code != 303 || loc != "/evil.example/x" {
		t.Errorf("?token= on //evil.example/x: got %d → %q, want 303 → /evil.example/x", rec.Code, loc)
	}

	checkTokenNotLogged(t, logBuf.String(), gen, access)
}

// openTokenServer starts a server with cfg that logs at debug level into
// logBuf and is shut down at the end of the test.
func openTokenServer(t *testing.T, logBuf *syncBuf, cfg Config) *testServer {
	t.Helper()
	return openTestServerLog(t, t.TempDir(), cfg, slog.New(slog.NewTextHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

// accessCookie visits the given server with ?token= and returns the access
// cookie it sets, after checking the redirect and the cookie's attributes.
func accessCookie(t *testing.T, given *testServer) *http.Cookie {
	t.Helper()
	rec := given.send(http.MethodGet, "/models?x=1&token="+url.QueryEscape(testToken)+"&y=2", "")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/models?x=1&y=2" {
		t.Fatalf("?token=: got %d → %q, want 303 → /models?x=1&y=2", rec.Code, rec.Header().Get("Location"))
	}
	var access *http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == "taglens_token_8080" {
			access = c
		}
	}
	if access == nil || !access.HttpOnly || access.SameSite != http.SameSiteStrictMode || access.Path != "/" {
		t.Fatalf("access cookie %+v: want taglens_token_8080, HttpOnly, SameSite=Strict, Path=/", access)
	}
	if strings.Contains(access.Value, testToken) {
		t.Error("the access cookie holds the token itself")
	}

	return access
}

// accessTokenCase is one request of TestAccessToken and its expected status.
type accessTokenCase struct {
	name string
	ts   *testServer
	path string
	hdr  []string
	want int
}

// accessTokenCases lists the requests of TestAccessToken: gen is public's
// generated token, access the cookie of given.
func accessTokenCases(public, given, publicGiven, loop *testServer, gen string, access *http.Cookie) []accessTokenCase {
	return []accessTokenCase{
		{"public: no token, API", public, "/api/corpora", nil, 401},
		{"public: no token, page", public, "/", nil, 401},
		{"public: no token, static", public, "/static/css/app.css", nil, 401},
		{"public: generated token as bearer", public, "/api/corpora", []string{"Authorization", "Bearer " + gen}, 200},
		{"public: bearer, lower-case scheme", public, "/api/corpora", []string{"Authorization", "bearer " + gen}, 200},
		{"public: wrong bearer", public, "/api/corpora", []string{"Authorization", "Bearer " + gen + "x"}, 401},
		{"public: basic auth", public, "/api/corpora", []string{"Authorization", "Basic " + gen}, 401},
		{"public: token query", public, "/?token=" + gen, nil, 303},
		{"public: wrong token query", public, "/?token=nope", nil, 401},
		{"public: another server's cookie", public, "/", []string{"Cookie", access.String()}, 401},
		{"given: no token", given, "/api/corpora", nil, 401},
		{"given: cookie", given, "/api/corpora", []string{"Cookie", access.String()}, 200},
		{"given: cookie, page", given, "/", []string{"Cookie", access.String()}, 200},
		{"given: forged cookie", given, "/", []string{"Cookie", "taglens_token_8080=" + testToken}, 401},
		{"given: bearer", given, "/api/corpora", []string{"Authorization", "Bearer " + testToken}, 200},
		{"given: query on a POST authenticates without redirect", given, "/api/models?token=" + testToken, []string{"Content-Type", "application/json"}, 400},
		{"public given: bearer", publicGiven, "/api/corpora", []string{"Host", "192.0.2.10:8080", "Authorization", "Bearer " + testToken}, 200},
		{"public given: none", publicGiven, "/api/corpora", []string{"Host", "192.0.2.10:8080"}, 401},
		{"loopback without token: none needed", loop, "/api/corpora", nil, 200},
	}
}

// checkTokenNotLogged checks that the requests were logged but the token, the
// cookie value and the refused values were not.
func checkTokenNotLogged(t *testing.T, logs, gen string, access *http.Cookie) {
	t.Helper()
	if !strings.Contains(logs, "/api/corpora") {
		t.Fatalf("the requests were not logged at debug level: %q", logs)
	}
	for _, secret := range []string{testToken, gen, access.Value, "token="} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
}

func TestTokenConfig(t *testing.T) {
	for _, tok := range []string{"short", "has a space in it 123", "tab\there-0123456789", "non-ascii-é-0123456789"} {
		st, err := store.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(Config{Token: tok}, Deps{Store: st}, nil); err == nil || !strings.Contains(err.Error(), "token") {
			t.Errorf("token %q: got %v, want an error about the token", tok, err)
		}
		st.Close()
	}
	for _, h := range []string{"", " ", "a/b"} {
		st, err := store.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(Config{AllowHosts: []string{h}}, Deps{Store: st}, nil); err == nil {
			t.Errorf("allowed host %q: want an error", h)
		}
		st.Close()
	}
}
