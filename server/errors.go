package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// The one place where an error becomes an HTTP status. Handlers, the use
// cases behind them (internal/app, createModel, createEval, ...) and the
// store return plain errors of a kind (app.ErrInput, app.ErrNotFound,
// app.ErrConflict, app.ErrTooLarge, app.ErrUnplaceable, store.ErrNotFound,
// a full queue, a refusal of the middleware); errStatus maps each kind to
// its status and message, and errorHandler answers with them: JSON
// {"error": "..."} under /api/, an error box for htmx, else an error page.

// apiError is the JSON body of every API error: {"error": "..."}.
type apiError struct {
	Error string `json:"error"`
}

// bodyError is an error that carries its own JSON body under /api/ (a map
// not computed yet: its state and the request that computes it).
type bodyError interface {
	error
	apiBody() any
}

// refusalKind is why the middleware refused a request.
type refusalKind int

const (
	refusedHost      refusalKind = iota // a Host that does not name this server
	refusedToken                        // no access token, or another
	refusedCrossSite                    // a state-changing request from another site
	refusedCSRF                         // a form without its CSRF token
	refusedMediaType                    // a JSON API body that is not declared JSON
	refusedTooLarge                     // a body whose Content-Length passes the limit
)

// refusedError is a request refused by the middleware (a foreign Host, a
// missing access or CSRF token, a cross-site request, a body too large or
// not JSON): its answer closes the connection without waiting for the rest
// of the body (answerAndClose).
type refusedError struct {
	kind refusalKind
	msg  string
}

func (e *refusedError) Error() string { return e.msg }

// refusal is a *refusedError with a formatted message.
func refusal(kind refusalKind, format string, args ...any) error {
	return &refusedError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// errStatus is the status and message of err. known is false for an
// unexpected error: a 500 whose message says nothing of the failure (the
// error handler logs it).
func errStatus(err error) (code int, msg string, known bool) {
	var rf *refusedError
	var mb *http.MaxBytesError
	var qf *jobs.QueueFullError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &rf):
		code = map[refusalKind]int{refusedHost: http.StatusForbidden, refusedToken: http.StatusUnauthorized,
			refusedCrossSite: http.StatusForbidden, refusedCSRF: http.StatusForbidden,
			refusedMediaType: http.StatusUnsupportedMediaType, refusedTooLarge: http.StatusRequestEntityTooLarge}[rf.kind]
		return code, rf.msg, true
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("upload too large: the limit is %d bytes", mb.Limit), true
	case errors.Is(err, app.ErrInput):
		return http.StatusBadRequest, err.Error(), true
	case errors.Is(err, app.ErrNotFound):
		return http.StatusNotFound, err.Error(), true
	case errors.Is(err, store.ErrNotFound):
		// A lookup no handler named (notFound names what was missing).
		return http.StatusNotFound, "not found", true
	case errors.Is(err, app.ErrConflict):
		return http.StatusConflict, err.Error(), true
	case errors.Is(err, app.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, err.Error(), true
	case errors.Is(err, app.ErrUnplaceable):
		return http.StatusUnprocessableEntity, err.Error(), true
	case errors.As(err, &qf):
		return http.StatusTooManyRequests, err.Error(), true
	case errors.Is(err, jobs.ErrShutdown):
		return http.StatusServiceUnavailable, "the server is shutting down", true
	case errors.As(err, &he):
		// echo's own: a path no route has (404), a method its route lacks (405).
		return he.Code, fmt.Sprint(he.Message), he.Code < 500
	}
	return http.StatusInternalServerError, "internal server error", false
}

// formError is the status and message of an error a form's page shows in
// the form it was sent with: the input's fault (bad input, not found, a
// conflict, too large, a model that cannot place it), not a refusal, a full
// queue or a failure of the server.
func formError(err error) (code int, msg string, ok bool) {
	for _, kind := range []error{app.ErrInput, app.ErrNotFound, store.ErrNotFound, app.ErrConflict, app.ErrTooLarge, app.ErrUnplaceable} {
		if errors.Is(err, kind) {
			code, msg, _ = errStatus(err)
			return code, msg, true
		}
	}
	return 0, "", false
}

// renderError renders page t, which shows err (a formError) in its form,
// with err's status.
func renderError(c echo.Context, err error, t templ.Component) error {
	code, _, _ := errStatus(err)
	return render(c, code, t)
}

// setXStatus tells htmx the status of err, answered with 200 (htmx swaps
// only 2xx by default) so that the user sees the fragment that says it.
func setXStatus(c echo.Context, err error) {
	code, _, _ := errStatus(err)
	c.Response().Header().Set("X-Status", strconv.Itoa(code))
}

// notFound names what was missing when err is the store's ErrNotFound.
func notFound(err error, what, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return app.NotFound(what, id)
	}
	return err
}

// errorHandler answers API errors with JSON and page errors with an error page.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	code, msg, known := errStatus(err)
	// A refused request's connection is closed with its answer, without
	// waiting for the rest of its body (answerAndClose).
	var rf *refusedError
	var mb *http.MaxBytesError
	refused := errors.As(err, &rf) || errors.As(err, &mb)
	var qf *jobs.QueueFullError
	switch sb := slowBody(c); {
	case sb != nil:
		// Whatever the handler made of the failed read: the body was too slow.
		code, msg, refused = http.StatusRequestTimeout, sb.Error(), true
	case known:
		if errors.As(err, &qf) {
			c.Response().Header().Set("Retry-After", "30")
		}
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
		werr = answerRefused(c, code, msg)
		return
	}
	if c.Request().Method == http.MethodHead {
		werr = c.NoContent(code)
		return
	}
	if isAPI(c) {
		var be bodyError
		if errors.As(err, &be) {
			werr = c.JSON(code, be.apiBody())
			return
		}
		werr = c.JSON(code, apiError{msg})
		return
	}
	if c.Request().Header.Get("HX-Request") == "true" {
		werr = errorBox(c, code, msg)
		return
	}
	werr = render(c, code, views.ErrorPage(http.StatusText(code), msg))
}

// errorBox answers an htmx request with msg in an error box: 200, the real
// status in X-Status.
func errorBox(c echo.Context, code int, msg string) error {
	c.Response().Header().Set("X-Status", strconv.Itoa(code))
	return render(c, http.StatusOK, views.ErrorBox(msg))
}

// answerRefused answers a refused request as the error handler answers
// others (JSON under /api/, an error box for htmx, else an error page), and
// closes its connection (answerAndClose).
func answerRefused(c echo.Context, code int, msg string) error {
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
		c.Response().Header().Set("X-Status", strconv.Itoa(code))
		code, t = http.StatusOK, views.ErrorBox(msg)
	}
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := t.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return answerAndClose(c, code, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}

// refuse answers a refusal of the outer middleware at once (not through the
// error handler, whose error page would load assets the refusal may also
// refuse): a JSON error under /api/, else a small self-contained page. Its
// connection is closed with the answer, without waiting for the rest of a
// body (answerAndClose).
func refuse(c echo.Context, kind refusalKind, msg string) error {
	code, msg, _ := errStatus(&refusedError{kind: kind, msg: msg})
	if isAPI(c) {
		b, err := json.Marshal(apiError{msg})
		if err != nil {
			return err
		}
		return answerAndClose(c, code, echo.MIMEApplicationJSON, append(b, '\n'))
	}
	page := "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + http.StatusText(code) +
		" · taglens</title></head><body><h1>" + http.StatusText(code) + "</h1><p>" + html.EscapeString(msg) + "</p></body></html>\n"
	return answerAndClose(c, code, echo.MIMETextHTMLCharsetUTF8, []byte(page))
}
