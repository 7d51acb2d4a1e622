package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/store"
	"github.com/taglens/taglens/views"
)

// maxFieldBytes bounds the small form fields (name, format) of an upload.
const maxFieldBytes = 1024

// uploadCorpus streams the multipart "file" part straight into the corpus parser
// (nothing is written to disk, the client's file name is used only as a default
// display name), validates the result and stores it. Fields "name" and "format"
// may come before the file part or as query parameters; after it they are
// refused (400), and an unknown format is refused naming the accepted ones. On a parse error nothing
// is stored and the error names the line. A gzip-compressed file is
// decompressed on the fly, up to Config.MaxCorpus bytes (413 beyond). An upload
// of the same file, name, format and split as a stored corpus (a retry whose
// answer was lost) stores nothing and returns that corpus with existed true.
//
// While it runs, the upload's progress is listed by GET /api/uploads under
// the id of its X-Upload-Id header or upload_id parameter (uploadprogress.go).
func (s *Server) uploadCorpus(c echo.Context) (row *store.CorpusRow, existed bool, err error) {
	req := c.Request()
	ct, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return nil, false, app.BadInput("", "want a multipart/form-data body with a \"file\" field")
	}
	id, err := uploadID(c)
	if err != nil {
		return nil, false, err
	}
	mr, err := req.MultipartReader()
	if err != nil {
		return nil, false, app.BadInput("", "bad multipart body: %v", err)
	}
	progress, err := s.uploads.begin(id, req.ContentLength)
	if err != nil {
		return nil, false, err
	}
	defer s.uploads.end(progress)
	f := &uploadForm{
		name:     strings.TrimSpace(c.QueryParam("name")),
		format:   strings.TrimSpace(c.QueryParam("format")),
		csrfOK:   !csrfPartRequired(c), // a page form without the header carries its token as a field
		progress: progress,
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			if !f.csrfOK {
				return nil, false, errCSRF()
			}
			if f.cp == nil {
				return nil, false, app.BadInput("", "%v", errNoFile)
			}
			return s.storeUpload(c, f)
		}
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				return nil, false, err
			}
			return nil, false, app.BadInput("", "bad multipart body: %v", err)
		}
		if err := s.uploadPart(c, f, part); err != nil {
			return nil, false, err
		}
	}
}

// uploadForm is what uploadCorpus has read of the multipart form so far.
type uploadForm struct {
	name, format string
	csrfOK       bool
	fileSeen     bool           // the "file" part has come (a name or format after it is refused)
	cp           *corpus.Corpus // the parsed "file", without its documents (in docs)
	docs         *store.DocPacker
	fileSum      []byte       // SHA-256 of the name and format it was read under and its bytes as sent
	splitText    []byte       // the optional "split" file (doc_id<TAB>train|valid|test|oov)
	progress     *uploadState // how far the upload is, for GET /api/uploads
}

// uploadPart reads one part of an upload's form into f.
func (s *Server) uploadPart(c echo.Context, f *uploadForm, part *multipart.Part) error {
	switch part.FormName() {
	case views.CSRFField:
		b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		if err != nil {
			return err
		}
		if !f.csrfOK && (len(b) > maxFieldBytes || !s.checkCSRFPart(c, string(b))) {
			return errCSRF()
		}
		f.csrfOK = true
	case "name", "format":
		b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		if err != nil {
			return err
		}
		if len(b) > maxFieldBytes {
			return app.BadInput("", "field %q is too long", part.FormName())
		}
		if f.fileSeen {
			// The file is parsed as it streams in, under the name and format
			// known when it starts: a field after it would be ignored.
			return app.BadInput("", "field %q comes after the file: it must come before the \"file\" field", part.FormName())
		}
		v := strings.TrimSpace(string(b))
		if part.FormName() == "name" && v != "" {
			f.name = v
		} else if part.FormName() == "format" && v != "" && v != "auto" {
			if _, err := corpus.ParseFormat(v); err != nil {
				return app.BadInput("", "field \"format\": %v", err)
			}
			f.format = v
		}
	case "file":
		f.fileSeen = true
		return s.uploadFile(c.Request().Context(), f, part)
	case "split":
		if !f.csrfOK {
			return errCSRF()
		}
		b, err := io.ReadAll(io.LimitReader(part, maxSplitBytes+1))
		if err != nil {
			return err
		}
		if len(b) > maxSplitBytes {
			return app.TooLarge("split file larger than %d bytes", maxSplitBytes)
		}
		if part.FileName() != "" && len(bytes.TrimSpace(b)) == 0 {
			// A page form without a chosen file sends an empty part with no
			// file name: no split. A named file that is empty is a mistake.
			return app.BadInput("", "split file %q is empty", part.FileName())
		}
		f.splitText = b
	default:
		// Unknown fields are drained and ignored.
		if _, err := io.Copy(io.Discard, part); err != nil {
			return err
		}
	}
	return nil
}

// uploadFile parses and validates the "file" part into f.cp and f.docs (its
// documents packed for the store as they are read), naming the
// corpus after the file when the form gave no name. Uploads are parsed one at
// a time (Server.parsing); one waiting for its turn gives up when its request
// ends.
func (s *Server) uploadFile(ctx context.Context, f *uploadForm, part *multipart.Part) error {
	if !f.csrfOK {
		return errCSRF()
	}
	if f.name == "" {
		// Display name only: the base name without extension, never a path.
		f.name = strings.TrimSuffix(path.Base(strings.ReplaceAll(part.FileName(), `\`, "/")), path.Ext(part.FileName()))
	}
	if f.name == "" || f.name == "." || f.name == "/" {
		f.name = "uploaded corpus"
	}
	if f.cp != nil {
		return app.BadInput("", "more than one \"file\" field: upload one corpus at a time")
	}
	f.progress.setName(f.name)
	f.progress.setStage(uploadWaiting)
	select {
	case s.parsing <- struct{}{}:
		defer func() { <-s.parsing }()
	case <-ctx.Done():
		return ctx.Err()
	}
	f.progress.setStage(uploadReading)
	h := sha256.New()
	fmt.Fprintf(h, "%q %q\n", f.name, f.format)
	in := counted{r: part, st: f.progress}
	docs := store.NewDocPacker()
	parsed, err := app.ImportCorpusTo(io.TeeReader(in, h), f.name, f.format, s.cfg.MaxCorpus, f.progress.parsed, docs)
	if err == nil {
		_, err = io.Copy(h, in) // what the parser left unread, if anything
	}
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		if errors.Is(err, corpus.ErrTooLarge) {
			return &app.TooLargeError{Reason: err.Error()}
		}
		return &app.InputError{Reason: err.Error()}
	}
	f.cp, f.docs, f.fileSum = parsed, docs, h.Sum(nil)
	return docs.Finish() // the term table is not needed any more
}

// uploadKey is the content key of an upload (Store.InsertUpload): a hash of
// the file's name, format and bytes and of the split file's bytes.
func uploadKey(f *uploadForm) string {
	h := sha256.New()
	h.Write(f.fileSum)
	fmt.Fprintf(h, "split %d\n", len(f.splitText))
	h.Write(f.splitText)
	return hex.EncodeToString(h.Sum(nil))
}

// maxSplitBytes bounds an uploaded split file.
const maxSplitBytes = 64 << 20

// storeUpload stores an uploaded corpus with its split: the split file's when
// one came with it (checked against the documents: every id known, assigned
// once, and all documents assigned), else none (training then draws the random
// split of corpus.DefaultSplitSeed).
func (s *Server) storeUpload(c echo.Context, f *uploadForm) (*store.CorpusRow, bool, error) {
	cp := f.cp
	var split corpus.Split
	if len(bytes.TrimSpace(f.splitText)) > 0 {
		// The split file names documents by id: a corpus of the ids alone.
		ids, err := f.docs.IDs()
		if err != nil {
			return nil, false, err
		}
		byID := &corpus.Corpus{Docs: make([]corpus.Document, len(ids)), Skipped: cp.Skipped, BidiSkipped: cp.BidiSkipped}
		for i, id := range ids {
			byID.Docs[i].ID = id
		}
		if split, err = app.ReadSplit(bytes.NewReader(f.splitText), byID); err != nil {
			return nil, false, app.BadInput("split file", "%v", err)
		}
	}
	f.progress.setStage(uploadStoring)
	row, existed, err := s.store.InsertUpload(c.Request().Context(), cp, f.docs, f.docs.Stats(cp), split, uploadKey(f))
	if err != nil {
		return nil, false, err
	}
	if existed {
		s.log.Info("corpus upload repeated: the stored corpus returned", "id", row.ID, "name", row.Name, "docs", row.Docs)
		return row, true, nil
	}
	s.log.Info("corpus uploaded", "id", row.ID, "name", row.Name, "docs", row.Docs, "tags", row.Tags,
		"format", row.Format, "detected", row.Detected, "split", len(split.Train) > 0,
		"dropped", cp.Dropped, "skipped", len(cp.Skipped), "bidi_skipped", len(cp.BidiSkipped), "bytes", f.progress.received.Load(),
		"seconds", time.Since(f.progress.started).Round(time.Millisecond).Seconds())
	return row, false, nil
}
