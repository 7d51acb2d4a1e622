package views

import (
	"context"
	"encoding/json"
)

// CSRFField is the form field and CSRFHeader the request header that carry the
// CSRF token of a page (server/security.go checks them on every form POST).
const (
	CSRFField  = "csrf_token"
	CSRFHeader = "X-CSRF-Token"
)

type csrfKey struct{}

// WithCSRFToken returns ctx carrying the CSRF token that the pages rendered with
// it put into their forms and into htmx's request headers.
func WithCSRFToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, csrfKey{}, token)
}

// CSRFToken is the token WithCSRFToken put into ctx, or "".
func CSRFToken(ctx context.Context) string {
	s, _ := ctx.Value(csrfKey{}).(string)
	return s
}

// csrfHeaders is the hx-headers value that makes htmx send the token with every
// request it makes ({"X-CSRF-Token": "…"}).
func csrfHeaders(ctx context.Context) string {
	b, err := json.Marshal(map[string]string{CSRFHeader: CSRFToken(ctx)})
	if err != nil { // a map of strings always marshals; send no header rather than fail the page
		return "{}"
	}
	return string(b)
}
