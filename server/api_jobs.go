package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/jobs"
	"github.com/taglens/taglens/server/store"
)

type jobsAPI struct{ s *Server }

// jobJSON is the API form of a job (API contract: id, kind, state, progress, stage, message).
type jobJSON struct {
	ID        string  `json:"id"`
	Kind      string  `json:"kind"`
	State     string  `json:"state"`
	Progress  float64 `json:"progress"`
	Stage     string  `json:"stage"`
	Message   string  `json:"message"`
	TargetID  string  `json:"target_id"`
	ETA       float64 `json:"eta_seconds,omitempty"`
	CreatedAt string  `json:"created_at"`
}

func toJobJSON(j *store.JobRow, eta float64) jobJSON {
	return jobJSON{ID: j.ID, Kind: j.Kind, State: j.State, Progress: j.Progress, Stage: j.Stage, Message: j.Message,
		TargetID: j.TargetID, ETA: eta, CreatedAt: j.CreatedAt.UTC().Format(time.RFC3339)}
}

// Pages of the job history: GET /api/jobs lists the newest defaultJobsLimit
// jobs unless ?limit= (up to maxJobsLimit) and ?offset= say otherwise.
const (
	defaultJobsLimit = 100
	maxJobsLimit     = 1000
)

// list: GET /api/jobs[?kind=][&limit=N][&offset=N] — the job history,
// newest first, one page of it.
func (h *jobsAPI) list(c echo.Context) error {
	limit, offset, err := pageParams(c, defaultJobsLimit, maxJobsLimit)
	if err != nil {
		return err
	}
	// One query; the jobs at work are shown in their live state, from memory.
	live := map[string]jobs.Live{}
	for _, j := range h.s.jobs.Active() {
		live[j.Row.ID] = j
	}
	ctx, kind := c.Request().Context(), c.QueryParam("kind")
	answer := func() ([]byte, error) {
		rows, err := h.s.store.Jobs(ctx, kind, limit, offset)
		if err != nil {
			return nil, err
		}
		out := make([]jobJSON, 0, len(rows))
		for _, r := range rows {
			if j, ok := live[r.ID]; ok && !r.Finished() { // ended since the snapshot: the stored row is newer
				out = append(out, toJobJSON(j.Row, j.ETA))
			} else {
				out = append(out, toJobJSON(r, 0))
			}
		}
		b, err := json.Marshal(out)
		return append(b, '\n'), err
	}
	var body []byte
	if len(live) == 0 && offset == 0 {
		// With no job at work the first page is the store's alone: its
		// answer is made once per write of the store (store.CachedRead).
		body, err = store.CachedRead(h.s.store, fmt.Sprintf("jobs.json\x00%s\x00%d", kind, limit), answer)
	} else {
		body, err = answer()
	}
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
}

func (h *jobsAPI) get(c echo.Context) error {
	id := c.Param("id")
	j, eta, err := h.s.jobs.Get(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "job", id)
	}
	return c.JSON(http.StatusOK, toJobJSON(j, eta))
}

// cancel: DELETE /api/jobs/:id → 200 with the final state; 409 if already finished.
func (h *jobsAPI) cancel(c echo.Context) error {
	id := c.Param("id")
	ok, err := h.s.jobs.Cancel(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "job", id)
	}
	j, eta, err := h.s.jobs.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if !ok {
		return app.Conflict("job %q has already finished (%s)", id, j.State)
	}
	return c.JSON(http.StatusOK, toJobJSON(j, eta))
}

// sseEvent is the data of one "progress" event.
type sseEvent struct {
	jobJSON
	Point *store.TrainPoint `json:"point,omitempty"`
}

// events: GET /api/jobs/:id/events — server-sent events, one "progress" event per
// update (JSON of the job plus an optional training point) and a final "end"
// event; the stream closes when the job ends. The route lifts the server's write
// deadline (echox cookbook/sse) and sends a comment every 15 s to keep proxies open.
func (h *jobsAPI) events(c echo.Context) error {
	id := c.Param("id")
	ctx := c.Request().Context()
	ch, unsub, err := h.s.jobs.Subscribe(ctx, id)
	if err != nil {
		return notFound(err, "job", id)
	}
	defer unsub()
	w := c.Response()
	// No write deadline for this long-lived response.
	if err := streaming(c); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	w.Flush()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	var last *store.JobRow
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.s.closing:
			return nil
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			w.Flush()
		case ev, ok := <-ch:
			if !ok {
				if last != nil {
					// The channel closes after the final update; re-read the stored state.
					if j, eta, err := h.s.jobs.Get(context0(c), id); err == nil {
						last = j
						if err := writeSSE(w, "progress", sseEvent{jobJSON: toJobJSON(j, eta)}); err != nil {
							return err
						}
					}
					return writeSSE(w, "end", toJobJSON(last, 0))
				}
				return nil
			}
			last = ev.Job
			if err := writeSSE(w, "progress", sseEvent{jobJSON: toJobJSON(ev.Job, ev.ETA), Point: ev.Point}); err != nil {
				return err
			}
		}
	}
}

// writeSSE sends v as the JSON data of an event; it returns the error of
// encoding v (a write to the client has nowhere to be reported).
func writeSSE(w *echo.Response, event string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	w.Flush()
	return nil
}

// pageParams reads a list's ?limit= (1..max, default def) and ?offset= (≥ 0,
// default 0).
func pageParams(c echo.Context, def, max int) (limit, offset int, err error) {
	limit = def
	if v := c.QueryParam("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > max {
			return 0, 0, app.BadInput("limit", "must be an integer in 1..%d", max)
		}
	}
	if v := c.QueryParam("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return 0, 0, app.BadInput("offset", "must be a non-negative integer")
		}
	}
	return limit, offset, nil
}
