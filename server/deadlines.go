package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
)

// The per-request time limits (Config; docs/security.md, "Slow clients").
// net/http's ReadTimeout and WriteTimeout run from the request's start, so a
// slow upload was either cut while still moving or read to its end and then
// answered into a write deadline long past: the corpus was stored and the
// client got an empty reply. Here the body's deadline moves with what
// arrives, and the answer's starts when the handler starts writing it.

// ctxBodyClock is the echo context key of a request's *bodyClock.
const ctxBodyClock = "taglens.body-clock"

// ctxStreaming marks a response that streams for as long as it lasts (the
// server-sent events): no write deadline is set when it starts.
const ctxStreaming = "taglens.streaming"

// deadlines (the first middleware) puts the body of a request under a
// bodyClock and sets the write deadline, Config.WriteTimeout, when the
// handler starts its answer.
func (s *Server) deadlines(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		res := c.Response()
		rc := http.NewResponseController(res.Writer)
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			b := &bodyClock{r: r.Body, rc: rc, grace: s.cfg.BodyGrace, rate: float64(s.cfg.MinBodyRate)}
			r.Body = b
			c.Set(ctxBodyClock, b)
		}
		res.Before(func() {
			if c.Get(ctxStreaming) != nil {
				return
			}
			// A writer without deadlines (a test recorder) has none to set.
			_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		})
		return next(c)
	}
}

// streaming lifts the write deadline of a response that lasts as long as
// the client listens (an event stream).
func streaming(c echo.Context) error {
	c.Set(ctxStreaming, true)
	err := http.NewResponseController(c.Response().Writer).SetWriteDeadline(time.Time{})
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return err
}

// A bodyClock reads a request body under a deadline that moves with what
// arrives: the body may take grace plus one second per rate bytes received,
// counting only the time spent waiting in Read (not the handler's work
// between reads). A client sending at least rate bytes a second is never
// cut; one that stalls is cut grace after it fell behind.
type bodyClock struct {
	r      io.ReadCloser
	rc     *http.ResponseController
	grace  time.Duration
	rate   float64 // bytes per second
	n      int64   // bytes read
	waited time.Duration
	eof    bool
	err    *slowBodyError // sticky once the deadline passed
}

// slowBodyError is the error of a request body that arrived slower than
// Config.MinBodyRate allows; the server answers 408.
type slowBodyError struct {
	Read   int64         // bytes received
	Waited time.Duration // time spent waiting for them
	Grace  time.Duration
	Rate   int64
}

func (e *slowBodyError) Error() string {
	return fmt.Sprintf("the request body arrived too slowly: %d bytes in %s; a body must arrive at %d bytes a second or faster after the first %s",
		e.Read, e.Waited.Round(time.Millisecond), e.Rate, e.Grace)
}

func (b *bodyClock) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.eof {
		return 0, io.EOF
	}
	budget := b.grace + time.Duration(float64(b.n)/b.rate*float64(time.Second)) - b.waited
	if budget <= 0 {
		b.err = &slowBodyError{Read: b.n, Waited: b.waited, Grace: b.grace, Rate: int64(b.rate)}
		return 0, b.err
	}
	start := time.Now()
	_ = b.rc.SetReadDeadline(start.Add(budget)) // ErrNotSupported: a test's request, no connection
	n, err := b.r.Read(p)
	b.waited += time.Since(start)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		// The whole body is in: net/http's read that watches for the client
		// going away now runs, and must not meet the deadline.
		b.eof = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		b.err = &slowBodyError{Read: b.n, Waited: b.waited, Grace: b.grace, Rate: int64(b.rate)}
		return n, b.err
	}
	return n, err
}

func (b *bodyClock) Close() error { return b.r.Close() }

// slowBody reports the slowBodyError of c's body, if its deadline passed
// (whatever error the handler made of it).
func slowBody(c echo.Context) *slowBodyError {
	b, _ := c.Get(ctxBodyClock).(*bodyClock)
	if b == nil {
		return nil
	}
	return b.err
}

// bodyPending reports whether c's request may still have body bytes on
// their way: it declared a body that was not read to its end.
func bodyPending(c echo.Context) bool {
	if c.Request().ContentLength == 0 {
		return false
	}
	b, _ := c.Get(ctxBodyClock).(*bodyClock)
	return b == nil || !b.eof
}

// Connection hand-over after a refusal.
const (
	// refusedLinger is how long a refused connection's unread body is read
	// and thrown away after the answer, at most: closing a socket with
	// unread bytes sends a reset, which can make the client lose the answer
	// (as net/http's rstAvoidanceDelay).
	refusedLinger = 500 * time.Millisecond
	// refusedDrain bounds the bytes thrown away in that time.
	refusedDrain = 1 << 20
)

// answerAndClose answers a refused request and closes its connection at
// once: the answer says "Connection: close", and when a body may still be
// on its way the server does not wait for it (net/http reads up to 256 KiB
// of an unread body before it closes, for as long as the client takes): it
// takes the connection over, writes the answer, reads for at most
// refusedLinger what already arrives, and closes.
func answerAndClose(c echo.Context, code int, contentType string, body []byte) error {
	res := c.Response()
	res.Header().Set("Connection", "close")
	if !bodyPending(c) || c.Request().ProtoMajor != 1 {
		return c.Blob(code, contentType, body)
	}
	conn, brw, err := http.NewResponseController(res.Writer).Hijack()
	if err != nil { // a test recorder: nothing to take over
		return c.Blob(code, contentType, body)
	}
	defer func() { _ = conn.Close() }() // the answer is out or the client gone: nothing to report
	h := res.Header().Clone()
	h.Set("Content-Type", contentType)
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	resp := &http.Response{StatusCode: code, ProtoMajor: 1, ProtoMinor: 1, Header: h, Close: true,
		ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body))}
	if c.Request().Method == http.MethodHead {
		resp.Body = http.NoBody
	}
	res.Status, res.Committed, res.Size = code, true, int64(len(body))
	now := time.Now()
	_ = conn.SetDeadline(now.Add(refusedLinger))
	if err := resp.Write(brw.Writer); err != nil {
		return nil // the client is gone
	}
	if err := brw.Writer.Flush(); err != nil {
		return nil
	}
	_, _ = io.CopyN(io.Discard, conn, refusedDrain)
	return nil
}
