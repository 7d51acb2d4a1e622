package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/views"
)

// The checks that make the server safe to leave running (docs/security.md):
//
//  1. checkHost: the Host header must name this server (a loopback name, the
//     listen address or an --allow-host name), which defeats DNS rebinding.
//  2. checkAccessToken: with an access token (always on a non-loopback bind)
//     every request carries it as a cookie, a bearer header or ?token=.
//  3. checkCrossSite: a state-changing request from another site (by
//     Sec-Fetch-Site, Origin or Referer: guard.crossSite) is refused. Every
//     route that starts work is a POST (no GET computes a map:
//     mapcompute.go), so this one check covers them all.
//  4. requireJSON (JSON API routes): a body must be declared
//     application/json, which a cross-site page cannot send without a CORS
//     preflight, and the server grants none.
//  5. pageCSRF / requireCSRF (page routes): form POSTs carry a token bound to
//     a per-browser cookie by an HMAC under a per-server secret.

const (
	csrfCookieName = "taglens_csrf"
	tokenParam     = "token"
	// tokenCookieMsg is what the access cookie's value is an HMAC of, keyed by
	// the token: the cookie proves the token without holding it.
	tokenCookieMsg = "taglens access cookie v1"
	// minTokenLength is the shortest access token the server accepts.
	minTokenLength = 16
)

// echo context keys.
const (
	ctxCSRFID      = "taglens.csrf-id"      // the CSRF cookie value the request came with ("" if none)
	ctxCSRFPending = "taglens.csrf-pending" // a multipart form whose token is its csrf_token part
	ctxBearer      = "taglens.bearer"       // authenticated by the Authorization header
)

// guard holds the security state of a server.
type guard struct {
	secret []byte // per-server random key of the CSRF tokens

	token       string   // access token; "" = none required
	tokenSum    [32]byte // SHA-256 of token (compared in constant time)
	cookieName  string   // access cookie name, per port: browsers share cookies across ports
	cookieValue string   // HMAC(token, tokenCookieMsg) in hex

	hosts map[string]bool // allowed host names besides loopback: the bound host, --allow-host
	extra map[string]bool // the --allow-host names alone (also accepted as Origin hosts)

	anyAddr bool // bound to every address: this machine's own IP addresses are allowed hosts
	ipMu    sync.Mutex
	localIP map[string]bool // this machine's addresses, re-read on a miss
}

// newGuard builds the security state for cfg. A non-loopback bind without a
// token gets a random one (Server.Token reports it).
func newGuard(cfg Config) (*guard, error) {
	g := &guard{secret: make([]byte, 32), hosts: map[string]bool{}, extra: map[string]bool{}}
	if _, err := rand.Read(g.secret); err != nil {
		return nil, fmt.Errorf("server: CSRF secret: %w", err)
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen address %q: %w", cfg.Addr, err)
	}
	if h := canonicalHost(host); h == "" || isUnspecified(h) {
		g.anyAddr = true
	} else {
		g.hosts[h] = true
	}
	for _, h := range cfg.AllowHosts {
		n := canonicalHost(h)
		if n == "" {
			return nil, fmt.Errorf("server: allowed host %q is empty", h)
		}
		if strings.ContainsAny(n, "/ ") {
			return nil, fmt.Errorf("server: allowed host %q is not a host name or address", h)
		}
		g.hosts[n] = true
		g.extra[n] = true
	}
	token := cfg.Token
	if token == "" && !IsLoopback(cfg.Addr) {
		if token, err = newToken(); err != nil {
			return nil, err
		}
	}
	if token != "" {
		if err := CheckToken(token); err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		g.token = token
		g.tokenSum = sha256.Sum256([]byte(token))
		g.cookieName = "taglens_token_" + cookieSafe(port)
		mac := hmac.New(sha256.New, []byte(token))
		mac.Write([]byte(tokenCookieMsg))
		g.cookieValue = hex.EncodeToString(mac.Sum(nil))
	}
	return g, nil
}

// newToken returns a random access token (32 bytes from crypto/rand, base64url).
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("server: access token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// CheckToken refuses access tokens that are too short, or hold spaces or
// characters outside printable ASCII (which a header cannot carry as they are).
func CheckToken(t string) error {
	if len(t) < minTokenLength {
		return fmt.Errorf("the access token must be at least %d characters long", minTokenLength)
	}
	for _, r := range t {
		if r <= ' ' || r > '~' {
			return fmt.Errorf("the access token must be printable ASCII without spaces")
		}
	}
	return nil
}

func cookieSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// canonicalHost is the host name of a Host header or address, without port,
// brackets or a trailing dot, lower-cased; IP addresses in canonical form.
func canonicalHost(hostport string) string {
	h := strings.TrimSpace(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return h
}

func isUnspecified(h string) bool {
	ip := net.ParseIP(h)
	return ip != nil && ip.IsUnspecified()
}

// hostAllowed reports whether a request's Host names this server.
func (g *guard) hostAllowed(hostport string) bool {
	h := canonicalHost(hostport)
	if h == "" {
		return false
	}
	if h == "localhost" || g.hosts[h] {
		return true
	}
	ip := net.ParseIP(h)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	return g.anyAddr && g.isLocalIP(h)
}

// isLocalIP reports whether h is one of this machine's addresses; the list is
// read again when h is not in it (an interface may have come up since).
func (g *guard) isLocalIP(h string) bool {
	g.ipMu.Lock()
	defer g.ipMu.Unlock()
	if g.localIP[h] {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	g.localIP = make(map[string]bool, len(addrs))
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			g.localIP[n.IP.String()] = true
		}
	}
	return g.localIP[h]
}

// sameOrigin reports whether an Origin header names the server the request
// was sent to: the Origin's host and port equal the Host header's (a Host
// without a port stands for the origin scheme's default port), or the Origin's
// host is an --allow-host name (a reverse proxy's public name).
func (g *guard) sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	oh := canonicalHost(u.Host)
	if g.extra[oh] {
		return true
	}
	defPort := "80"
	if u.Scheme == "https" {
		defPort = "443"
	}
	op := u.Port()
	if op == "" {
		op = defPort
	}
	hp := defPort
	if _, p, err := net.SplitHostPort(host); err == nil {
		hp = p
	}
	return oh == canonicalHost(host) && op == hp
}

// tokenOK compares a presented access token with the server's in constant time.
func (g *guard) tokenOK(t string) bool {
	sum := sha256.Sum256([]byte(t))
	return subtle.ConstantTimeCompare(sum[:], g.tokenSum[:]) == 1
}

func (g *guard) cookieOK(r *http.Request) bool {
	ck, err := r.Cookie(g.cookieName)
	return err == nil && subtle.ConstantTimeCompare([]byte(ck.Value), []byte(g.cookieValue)) == 1
}

// csrfToken is the CSRF token of a browser's CSRF cookie value.
func (g *guard) csrfToken(id string) string {
	mac := hmac.New(sha256.New, g.secret)
	mac.Write([]byte("csrf\x00"))
	mac.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// csrfValid reports whether tok is the token of the cookie value id.
func (g *guard) csrfValid(id, tok string) bool {
	if id == "" || tok == "" {
		return false
	}
	return hmac.Equal([]byte(tok), []byte(g.csrfToken(id)))
}

// validCSRFID reports whether a CSRF cookie value has the form newCSRFID makes
// (anything else is replaced).
func validCSRFID(v string) bool {
	b, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil && len(b) == 16
}

func newCSRFID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("server: CSRF cookie: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func isAPI(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/api/") }

// unsafeMethod reports whether a method may change state (anything but GET,
// HEAD, OPTIONS and TRACE).
func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}

// shown shortens a client-supplied value for a message.
func shown(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// checkHost refuses a request whose Host header does not name this server:
// a page on another site that rebinds its DNS name to 127.0.0.1 sends its own
// name, so it can neither read the API nor use the browser's cookies.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		host := c.Request().Host
		if s.guard.hostAllowed(host) {
			return next(c)
		}
		s.log.Warn("refused a request for another host name", "host", shown(host), "method", c.Request().Method, "path", c.Request().URL.Path)
		if host == "" {
			return refuse(c, refusedHost, "the request has no Host header")
		}
		name := canonicalHost(host)
		return refuse(c, refusedHost, fmt.Sprintf(
			"host %q is not allowed: taglens answers only to localhost, its listen address and the names given with --allow-host; if %q is this machine, restart with --allow-host %s",
			shown(name), shown(name), shown(name)))
	}
}

// checkAccessToken (only with an access token) lets a request through when it
// carries the token: "Authorization: Bearer TOKEN", the access cookie, or
// ?token=TOKEN, which on a GET sets the cookie and redirects to the same URL
// without the token. The token is never logged.
func (s *Server) checkAccessToken(next echo.HandlerFunc) echo.HandlerFunc {
	g := s.guard
	return func(c echo.Context) error {
		if g.token == "" {
			return next(c)
		}
		r := c.Request()
		if auth := r.Header.Get("Authorization"); auth != "" {
			scheme, cred, _ := strings.Cut(auth, " ")
			if !strings.EqualFold(scheme, "Bearer") || !g.tokenOK(strings.TrimSpace(cred)) {
				return s.unauthorized(c, "the Authorization header does not hold this server's access token")
			}
			c.Set(ctxBearer, true)
			return next(c)
		}
		q := r.URL.Query()
		if q.Has(tokenParam) {
			if !g.tokenOK(q.Get(tokenParam)) {
				return s.unauthorized(c, "the token in the URL is not this server's access token")
			}
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				return next(c)
			}
			c.SetCookie(&http.Cookie{Name: g.cookieName, Value: g.cookieValue, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del(tokenParam)
			return c.Redirect(http.StatusSeeOther, localURL(r.URL.EscapedPath(), q.Encode()))
		}
		if g.cookieOK(r) {
			return next(c)
		}
		return s.unauthorized(c, "this server needs its access token")
	}
}

// localURL is path?query as a same-server URL: leading slashes and backslashes
// collapse to one slash, so "//evil.example" cannot redirect to another host.
func localURL(path, query string) string {
	u := "/" + strings.TrimLeft(path, "/\\")
	if query != "" {
		u += "?" + query
	}
	return u
}

// unauthorized answers 401 with msg and how to present the token.
func (s *Server) unauthorized(c echo.Context, msg string) error {
	c.Response().Header().Set("WWW-Authenticate", `Bearer realm="taglens"`)
	return refuse(c, refusedToken, msg+`: open the URL with ?token= that taglens serve printed when it started (or add ?token=TOKEN to this one), or send "Authorization: Bearer TOKEN"`)
}

// crossSite is the one rule of what comes from another site: it says why a
// browser's request was sent by a page of another site (or another origin of
// this one), "" when nothing says so. A request is from another site when
// the browser marks it so (Sec-Fetch-Site: cross-site, or same-site without
// an Origin of this server), or when its Origin or Referer names another
// origin than the server it was sent to. Requests with none of these headers
// (curl, scripts: the local user) pass.
func (g *guard) crossSite(r *http.Request) string {
	origin := r.Header.Get("Origin")
	switch site := r.Header.Get("Sec-Fetch-Site"); {
	case site == "cross-site":
		return "the browser marks it as sent from another site (Sec-Fetch-Site: cross-site)"
	case site == "same-site" && (origin == "" || !g.sameOrigin(origin, r.Host)):
		return "the browser marks it as sent from another origin of the same site (Sec-Fetch-Site: same-site)"
	case origin != "" && !g.sameOrigin(origin, r.Host):
		return fmt.Sprintf("its Origin %q is not this server (%q)", shown(origin), shown(r.Host))
	}
	// A Referer is sent by browsers without Sec-Fetch-Site too; its origin is
	// compared as an Origin is (path and query do not matter).
	if ref := r.Header.Get("Referer"); ref != "" && !g.sameOrigin(ref, r.Host) {
		return fmt.Sprintf("its Referer %q is not this server (%q)", shown(ref), shown(r.Host))
	}
	return ""
}

// checkCrossSite refuses a state-changing request from another site
// (guard.crossSite).
func (s *Server) checkCrossSite(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !unsafeMethod(r.Method) {
			return next(c)
		}
		if why := s.guard.crossSite(r); why != "" {
			return s.refuseCrossSite(c, why)
		}
		return next(c)
	}
}

// refuseCrossSite answers 403 to a request from another site.
func (s *Server) refuseCrossSite(c echo.Context, why string) error {
	r := c.Request()
	s.log.Warn("refused a cross-site request", "method", r.Method, "path", r.URL.Path,
		"origin", shown(r.Header.Get("Origin")), "referer", shown(r.Header.Get("Referer")), "host", shown(r.Host))
	return refuse(c, refusedCrossSite, "cross-site request refused: "+why)
}

// pageCSRF gives every page request (not /api/, not /static/) a CSRF cookie if
// it has none and puts the page's CSRF token into the request context, where
// the templates find it (views.CSRFToken).
func (s *Server) pageCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if isAPI(c) || strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/favicon.ico" {
			return next(c)
		}
		id := ""
		if ck, err := r.Cookie(csrfCookieName); err == nil && validCSRFID(ck.Value) {
			id = ck.Value
		}
		c.Set(ctxCSRFID, id)
		if id == "" {
			var err error
			if id, err = newCSRFID(); err != nil {
				return err
			}
			// Lax, not Strict: a link from another site to a page must not
			// replace the cookie, or other open tabs' forms would fail.
			c.SetCookie(&http.Cookie{Name: csrfCookieName, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		}
		c.SetRequest(r.WithContext(views.WithCSRFToken(r.Context(), s.guard.csrfToken(id))))
		return next(c)
	}
}

// errCSRF is the refusal of a form without a valid CSRF token.
func errCSRF() error {
	return refusal(refusedCSRF, "missing or invalid CSRF token: reload the page and submit the form again")
}

// requireCSRF (route middleware of the page forms, after the body limit)
// refuses a request without the page's CSRF token in the X-CSRF-Token header
// or the csrf_token form field. A multipart form without the header is checked
// by the upload itself, which finds the field before the file
// (csrfPartRequired). Requests authenticated by the bearer header need no
// token: a cross-site page cannot send that header.
func (s *Server) requireCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if b, _ := c.Get(ctxBearer).(bool); b {
			return next(c)
		}
		r := c.Request()
		id, _ := c.Get(ctxCSRFID).(string)
		if id == "" {
			// No CSRF cookie: no token can be valid, refused before its
			// body is read.
			return errCSRF()
		}
		tok := r.Header.Get(views.CSRFHeader)
		if tok == "" {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			switch {
			case err == nil && mt == "multipart/form-data":
				c.Set(ctxCSRFPending, true)
				return next(c)
			case err == nil && mt == "application/x-www-form-urlencoded":
				if err := r.ParseForm(); err != nil {
					var mb *http.MaxBytesError
					if errors.As(err, &mb) {
						return err
					}
					return app.BadInput("", "bad form: %v", err)
				}
				tok = r.PostForm.Get(views.CSRFField)
			}
		}
		if !s.guard.csrfValid(id, tok) {
			return errCSRF()
		}
		return next(c)
	}
}

// csrfPartRequired reports whether the upload must find a valid csrf_token
// part before its file part.
func csrfPartRequired(c echo.Context) bool {
	p, _ := c.Get(ctxCSRFPending).(bool)
	return p
}

// checkCSRFPart validates the value of a multipart csrf_token part.
func (s *Server) checkCSRFPart(c echo.Context, tok string) bool {
	id, _ := c.Get(ctxCSRFID).(string)
	return s.guard.csrfValid(id, tok)
}

// requireJSON (route middleware of the JSON API's state-changing routes)
// answers 415 when a request with a body does not declare it
// application/json. A cross-site page can send a body only as a form or
// text/plain without a CORS preflight, which the server never grants.
func requireJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.ContentLength == 0 {
			return next(c)
		}
		ct := r.Header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			if ct == "" {
				ct = "none"
			}
			return refusal(refusedMediaType, "the body must be JSON sent with Content-Type: application/json (got %s)", shown(ct))
		}
		return next(c)
	}
}
