package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
)

// render writes a templ component through one buffer (templ integration-echo).
func render(c echo.Context, status int, t templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := t.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// requestLog logs each request with slog attributes.
func (s *Server) requestLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		if p := c.Request().URL.Path; !strings.HasPrefix(p, "/static/") && s.log.Enabled(context.Background(), slog.LevelDebug) {
			s.log.Debug("request", "method", c.Request().Method, "path", p,
				"status", c.Response().Status, "dur", time.Since(start))
		}
		return nil
	}
}

// contentSecurityPolicy forbids loading anything from another origin and inline scripts.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"

// securityHeaders sets the Content-Security-Policy and two hardening headers
// on every response (prepared values, canonical keys: no work per request).
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h["Content-Security-Policy"] = hdrCSP
		h["X-Content-Type-Options"] = hdrNoSniff
		h["Referrer-Policy"] = hdrReferrer
		return next(c)
	}
}

// bodyLimit caps the request body: a declared Content-Length over the limit is
// refused at once with 413; otherwise reading past the limit fails with an
// *http.MaxBytesError, which the error handler turns into 413.
func bodyLimit(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.ContentLength > limit {
				return refusal(refusedTooLarge, "upload too large: %d bytes, the limit is %d bytes", r.ContentLength, limit)
			}
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
			return next(c)
		}
	}
}

// bindJSON decodes a JSON body strictly into v: unknown fields and anything
// but white space after the one JSON value are refused.
func bindJSON(c echo.Context, v any) error {
	dec := jsonDecoder(c.Request().Body)
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			if terr == nil {
				return app.BadInput("", "bad JSON body: more data after the JSON value (at byte %d): send one JSON object", dec.InputOffset())
			}
			err = terr
		}
	}
	if err != nil {
		var mb *http.MaxBytesError
		var sb *slowBodyError
		if errors.As(err, &mb) || errors.As(err, &sb) {
			return err
		}
		return app.BadInput("", "bad JSON body: %v", err)
	}
	return nil
}

// recoverPanics turns a handler panic into a 500 and logs it (echo's middleware
// package is not used: it pulls in golang.org/x/time, which go.sum does not pin).
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("handler panicked", "path", c.Request().URL.Path, "panic", p)
				err = fmt.Errorf("internal error")
			}
		}()
		return next(c)
	}
}

func jsonDecoder(r io.Reader) *json.Decoder {
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	return d
}

// context0 is the request's context (named for brevity in handlers).
func context0(c echo.Context) context.Context { return c.Request().Context() }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func jsonUnmarshal(b []byte, v any) error {
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, v)
}
