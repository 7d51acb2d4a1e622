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

	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// apiError is the JSON body of every API error: {"error": "..."}.
type apiError struct {
	Error string `json:"error"`
}

// errorHandler answers API errors with JSON and page errors with an error page.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	code := http.StatusInternalServerError
	msg := "internal server error"
	var he *echo.HTTPError
	var mb *http.MaxBytesError
	var qf *jobs.QueueFullError
	// A refused request's connection is closed with its answer, without
	// waiting for the rest of its body (answerAndClose).
	refused := errors.Is(err, errRefused)
	switch sb := slowBody(c); {
	case sb != nil:
		// Whatever the handler made of the failed read: the body was too slow.
		code, msg, refused = http.StatusRequestTimeout, sb.Error(), true
	case errors.As(err, &mb):
		code, msg, refused = http.StatusRequestEntityTooLarge, fmt.Sprintf("upload too large: the limit is %d bytes", mb.Limit), true
	case errors.As(err, &he):
		code = he.Code
		msg = fmt.Sprint(he.Message)
		if he.Internal != nil && code >= 500 {
			s.log.Error("request failed", "path", c.Request().URL.Path, "err", he.Internal)
		}
	case errors.As(err, &qf):
		code, msg = http.StatusTooManyRequests, qf.Error()
		c.Response().Header().Set("Retry-After", "30")
	case errors.Is(err, jobs.ErrShutdown):
		code, msg = http.StatusServiceUnavailable, "the server is shutting down"
	case errors.Is(err, store.ErrNotFound):
		code, msg = http.StatusNotFound, "not found"
	case c.Request().Context().Err() != nil && errors.Is(err, context.Canceled):
		// The client went away (closed the tab, cancelled a fetch): nothing to
		// answer and nothing wrong with the server.
		s.log.Debug("client disconnected", "path", c.Request().URL.Path)
		return
	default:
		s.log.Error("request failed", "path", c.Request().URL.Path, "err", err)
	}
	var werr error
	defer func() {
		if werr != nil {
			// The answer could not be written: the client is usually gone.
			s.log.Debug("writing an error answer", "path", c.Request().URL.Path, "err", werr)
		}
	}()
	if refused {
		werr = refusedError(c, code, msg)
		return
	}
	if c.Request().Method == http.MethodHead {
		werr = c.NoContent(code)
		return
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		werr = c.JSON(code, apiError{msg})
		return
	}
	if c.Request().Header.Get("HX-Request") == "true" {
		// htmx swaps only 2xx by default; send the message as a fragment with 200
		// and the real status in a header so the user sees it.
		c.Response().Header().Set("X-Status", fmt.Sprint(code))
		werr = render(c, http.StatusOK, views.ErrorBox(msg))
		return
	}
	werr = render(c, code, views.ErrorPage(http.StatusText(code), msg))
}

// refusedError answers a refused request as the error handler answers
// others (JSON under /api/, an error box for htmx, else an error page), and
// closes its connection (answerAndClose).
func refusedError(c echo.Context, code int, msg string) error {
	if c.Request().Method == http.MethodHead {
		return answerAndClose(c, code, "text/plain; charset=utf-8", nil)
	}
	if isAPI(c) {
		b, err := json.Marshal(apiError{msg})
		if err != nil {
			return err
		}
		return answerAndClose(c, code, echo.MIMEApplicationJSON, append(b, '\n'))
	}
	t := views.ErrorPage(http.StatusText(code), msg)
	if c.Request().Header.Get("HX-Request") == "true" {
		c.Response().Header().Set("X-Status", fmt.Sprint(code))
		code, t = http.StatusOK, views.ErrorBox(msg)
	}
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := t.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return answerAndClose(c, code, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}

// httpErr is a shorthand for an *echo.HTTPError with a message.
func httpErr(code int, format string, args ...any) error {
	return echo.NewHTTPError(code, fmt.Sprintf(format, args...))
}

// notFound maps ErrNotFound to a 404 naming what was missing.
func notFound(err error, what, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return httpErr(http.StatusNotFound, "%s %q not found", what, id)
	}
	return err
}

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
				return refusal(http.StatusRequestEntityTooLarge, "upload too large: %d bytes, the limit is %d bytes", r.ContentLength, limit)
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
				return httpErr(http.StatusBadRequest, "bad JSON body: more data after the JSON value (at byte %d): send one JSON object", dec.InputOffset())
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
		return httpErr(http.StatusBadRequest, "bad JSON body: %v", err)
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
