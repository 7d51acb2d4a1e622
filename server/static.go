package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
)

// staticFiles serves the embedded assets with a cache lifetime, a strong ETag
// (the sha256 of the file) and, to clients that accept it, a gzip copy made
// once per asset on its first request and kept for the life of the server.
type staticFiles struct {
	fsys fs.FS

	mu     sync.Mutex
	assets map[string]*staticAsset

	compressions atomic.Int64 // gzip copies made (tests check it stays one per asset)
}

// staticAsset is one file, read and prepared once.
type staticAsset struct {
	once  sync.Once
	err   error
	ctype string
	body  []byte
	etag  string // `"<sha256 hex>"`
	gz    []byte // nil when gzip does not make the file smaller
	gzTag string // `"<sha256 hex>-gzip"`: a distinct strong ETag for the gzip bytes
}

// staticHandler serves fsys with paths relative to its root (handle takes
// them from under "/static/").
func staticHandler(fsys fs.FS) *staticFiles {
	return &staticFiles{fsys: fsys, assets: map[string]*staticAsset{}}
}

// handle answers GET /static/<name> with the asset name. Its failures are
// returned to the error handler (errors.go), which chooses their status.
func (h *staticFiles) handle(c echo.Context) error {
	r := c.Request()
	name, ok := strings.CutPrefix(r.URL.Path, "/static/")
	if !ok || name == "" || strings.HasSuffix(name, "/") || !fs.ValidPath(name) {
		return app.NotFound("asset", r.URL.Path)
	}
	return h.serve(c.Response(), r, name)
}

// serve answers with the asset name (a valid fs path), or returns an
// app.NotFound error when there is none, or the error of reading it.
func (h *staticFiles) serve(w http.ResponseWriter, r *http.Request, name string) error {
	a, err := h.asset(name)
	if errors.Is(err, fs.ErrNotExist) {
		return app.NotFound("asset", "/static/"+name)
	}
	if err != nil {
		return fmt.Errorf("reading the asset %s: %w", name, err)
	}
	hdr := w.Header()
	hdr.Set("Cache-Control", "public, max-age=3600")
	hdr.Set("Content-Type", a.ctype)
	body, tag := a.body, a.etag
	if a.gz != nil {
		hdr.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, tag = a.gz, a.gzTag
			hdr.Set("Content-Encoding", "gzip")
		}
	}
	hdr.Set("ETag", tag)
	// acceptsGzip is the map API's parser (maps.go). ServeContent answers If-None-Match with 304, HEAD and ranges (of the
	// bytes sent, compressed or not).
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
	return nil
}

// asset returns the prepared asset, reading and compressing it on first use.
func (h *staticFiles) asset(name string) (*staticAsset, error) {
	h.mu.Lock()
	a := h.assets[name]
	if a == nil {
		a = &staticAsset{}
		h.assets[name] = a
	}
	h.mu.Unlock()
	a.once.Do(func() { a.err = h.prepare(a, name) })
	return a, a.err
}

func (h *staticFiles) prepare(a *staticAsset, name string) error {
	st, err := fs.Stat(h.fsys, name)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fs.ErrNotExist
	}
	b, err := fs.ReadFile(h.fsys, name)
	if err != nil {
		return err
	}
	a.body = b
	a.ctype = mime.TypeByExtension(path.Ext(name))
	if a.ctype == "" {
		a.ctype = http.DetectContentType(b)
	}
	sum := sha256.Sum256(b)
	hexsum := hex.EncodeToString(sum[:])
	a.etag = `"` + hexsum + `"`
	if len(b) < 256 {
		return nil // not worth a second copy
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return err
	}
	h.compressions.Add(1)
	if buf.Len() < len(b)*9/10 {
		a.gz = buf.Bytes()
		a.gzTag = `"` + hexsum + `-gzip"`
	}
	return nil
}
