package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
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

func toJobJSON(j *JobRow, eta float64) jobJSON {
	return jobJSON{ID: j.ID, Kind: j.Kind, State: j.State, Progress: j.Progress, Stage: j.Stage, Message: j.Message,
		TargetID: j.TargetID, ETA: eta, CreatedAt: j.CreatedAt.UTC().Format(time.RFC3339)}
}

func (h *jobsAPI) list(c echo.Context) error {
	// One query; the jobs at work are shown in their live state, from memory.
	live := map[string]LiveJob{}
	for _, j := range h.s.jobs.Active() {
		live[j.Row.ID] = j
	}
	rows, err := h.s.store.Jobs(c.Request().Context(), c.QueryParam("kind"))
	if err != nil {
		return err
	}
	out := make([]jobJSON, 0, len(rows))
	for _, r := range rows {
		if j, ok := live[r.ID]; ok && !r.Finished() { // ended since the snapshot: the stored row is newer
			out = append(out, toJobJSON(j.Row, j.ETA))
		} else {
			out = append(out, toJobJSON(r, 0))
		}
	}
	return c.JSON(http.StatusOK, out)
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
		return httpErr(http.StatusConflict, "job %q has already finished (%s)", id, j.State)
	}
	return c.JSON(http.StatusOK, toJobJSON(j, eta))
}

// sseEvent is the data of one "progress" event.
type sseEvent struct {
	jobJSON
	Point *TrainPoint `json:"point,omitempty"`
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
	var last *JobRow
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
