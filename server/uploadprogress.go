package server

import (
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/corpus"
)

// An upload streams its file through the parser and into the store within
// its request (upload.go), so its progress lives as long as the request:
// uploads holds the uploads under way, each under the id its client gave in
// the X-Upload-Id header (or the upload_id query parameter) or a random one,
// and GET /api/uploads and /api/uploads/{id} read them. Nothing of it is
// stored: an upload cut by a restart left nothing to resume.

// uploadIDHeader is the request header naming an upload for its progress.
const uploadIDHeader = "X-Upload-Id"

// validUploadID is the form of a client's upload id.
var validUploadID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// The stages of an upload.
const (
	uploadReceiving = "receiving" // reading the form's fields before the file
	uploadWaiting   = "waiting"   // for another upload's parse to end (one at a time)
	uploadReading   = "reading"   // parsing the file as it streams in
	uploadStoring   = "storing"   // writing the parsed corpus to the database
)

// uploads is the set of uploads under way.
type uploads struct {
	mu sync.Mutex
	m  map[string]*uploadState
}

// uploadState is how far one upload is.
type uploadState struct {
	id       string
	started  time.Time
	total    int64        // the request's Content-Length; -1 when not sent
	received atomic.Int64 // bytes of the file part read, as sent (compressed or not)

	mu       sync.Mutex
	name     string
	stage    string
	unpacked int64 // bytes of the file read after decompression
	docs     int   // documents read: kept, dropped and skipped
}

// uploadJSON is the API form of an upload under way.
type uploadJSON struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"` // the corpus's name, once known
	// Stage: receiving, waiting, reading or storing.
	Stage         string  `json:"stage"`
	ReceivedBytes int64   `json:"received_bytes"`
	TotalBytes    int64   `json:"total_bytes,omitempty"` // the request body's declared size
	UnpackedBytes int64   `json:"unpacked_bytes"`
	Docs          int     `json:"docs"`
	Elapsed       float64 `json:"elapsed_s"`
}

// begin registers an upload under id ("" for a random one) in the
// receiving stage; end must be called when it is over. An id in use by
// another upload under way is refused.
func (u *uploads) begin(id string, total int64) (*uploadState, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if id == "" {
		for id == "" || u.m[id] != nil {
			id = newFormID()
		}
	} else if u.m[id] != nil {
		return nil, app.Conflict("upload id %q is in use by an upload under way: give each upload its own", id)
	}
	if u.m == nil {
		u.m = map[string]*uploadState{}
	}
	st := &uploadState{id: id, started: time.Now(), total: total, stage: uploadReceiving}
	u.m[id] = st
	return st, nil
}

// end removes the upload from the set.
func (u *uploads) end(st *uploadState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m[st.id] == st {
		delete(u.m, st.id)
	}
}

// get returns the upload under way with this id, or nil.
func (u *uploads) get(id string) *uploadState {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.m[id]
}

// list returns the uploads under way, oldest first.
func (u *uploads) list() []*uploadState {
	u.mu.Lock()
	all := make([]*uploadState, 0, len(u.m))
	for _, st := range u.m {
		all = append(all, st)
	}
	u.mu.Unlock()
	slices.SortFunc(all, func(a, b *uploadState) int {
		if c := a.started.Compare(b.started); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return all
}

func (st *uploadState) setStage(stage string) {
	st.mu.Lock()
	st.stage = stage
	st.mu.Unlock()
}

func (st *uploadState) setName(name string) {
	st.mu.Lock()
	st.name = name
	st.mu.Unlock()
}

// parsed records a parse's progress (corpus.ParseOptions.Progress).
func (st *uploadState) parsed(p corpus.Progress) {
	st.mu.Lock()
	st.docs, st.unpacked = p.Docs, p.Bytes
	st.mu.Unlock()
}

func (st *uploadState) json() uploadJSON {
	st.mu.Lock()
	defer st.mu.Unlock()
	return uploadJSON{ID: st.id, Name: st.name, Stage: st.stage, ReceivedBytes: st.received.Load(), TotalBytes: max(st.total, 0),
		UnpackedBytes: st.unpacked, Docs: st.docs, Elapsed: time.Since(st.started).Round(time.Millisecond).Seconds()}
}

// counted counts the bytes read through it into st.received.
type counted struct {
	r  io.Reader
	st *uploadState
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.st.received.Add(int64(n))
	return n, err
}

// uploadID returns the id a request gives its upload: the X-Upload-Id
// header, else the upload_id query parameter, else "" (a random one).
func uploadID(c echo.Context) (string, error) {
	id := c.Request().Header.Get(uploadIDHeader)
	if id == "" {
		id = c.QueryParam("upload_id")
	}
	if id != "" && !validUploadID.MatchString(id) {
		return "", app.BadInput("upload_id", "an upload id is 1 to 64 letters, digits, '-' or '_'")
	}
	return id, nil
}

// listUploads: GET /api/uploads — the uploads under way, oldest first.
func (h *corporaAPI) listUploads(c echo.Context) error {
	all := h.s.uploads.list()
	out := make([]uploadJSON, len(all))
	for i, st := range all {
		out[i] = st.json()
	}
	return c.JSON(http.StatusOK, out)
}

// getUpload: GET /api/uploads/:id — one upload under way; 404 once it is
// over (its answer says how it ended) or when no upload has this id.
func (h *corporaAPI) getUpload(c echo.Context) error {
	st := h.s.uploads.get(c.Param("id"))
	if st == nil {
		return &app.NotFoundError{What: "upload", ID: c.Param("id"),
			Reason: "no upload under way has id " + corpus.Excerpt(c.Param("id")) + " (an upload's progress is kept while it runs)"}
	}
	return c.JSON(http.StatusOK, st.json())
}
