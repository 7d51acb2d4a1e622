package server

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/views"
)

// maxFieldBytes bounds the small form fields (name, format) of an upload.
const maxFieldBytes = 1024

// uploadCorpus streams the multipart "file" part straight into the corpus parser
// (nothing is written to disk, the client's file name is used only as a default
// display name), validates the result and stores it. Fields "name" and "format"
// may come before the file part or as query parameters. On a parse error nothing
// is stored and the error names the line. A gzip-compressed file is
// decompressed on the fly, up to Config.MaxCorpus bytes (413 beyond).
func (s *Server) uploadCorpus(c echo.Context) (*CorpusRow, error) {
	req := c.Request()
	ct, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return nil, httpErr(http.StatusBadRequest, "want a multipart/form-data body with a \"file\" field")
	}
	mr, err := req.MultipartReader()
	if err != nil {
		return nil, httpErr(http.StatusBadRequest, "bad multipart body: %v", err)
	}
	f := &uploadForm{
		name:   strings.TrimSpace(c.QueryParam("name")),
		format: strings.TrimSpace(c.QueryParam("format")),
		csrfOK: !csrfPartRequired(c), // a page form without the header carries its token as a field
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			if !f.csrfOK {
				return nil, errCSRF()
			}
			if f.cp == nil {
				return nil, httpErr(http.StatusBadRequest, "%v", errNoFile)
			}
			return s.storeUpload(c, f.cp, f.splitText)
		}
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				return nil, err
			}
			return nil, httpErr(http.StatusBadRequest, "bad multipart body: %v", err)
		}
		if err := s.uploadPart(c, f, part); err != nil {
			return nil, err
		}
	}
}

// uploadForm is what uploadCorpus has read of the multipart form so far.
type uploadForm struct {
	name, format string
	csrfOK       bool
	cp           *corpus.Corpus // the parsed "file"
	splitText    []byte         // the optional "split" file (doc_id<TAB>train|valid|test|oov)
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
			return httpErr(http.StatusBadRequest, "field %q is too long", part.FormName())
		}
		v := strings.TrimSpace(string(b))
		if part.FormName() == "name" && v != "" {
			f.name = v
		} else if part.FormName() == "format" && v != "" && v != "auto" {
			f.format = v
		}
	case "file":
		return s.uploadFile(f, part)
	case "split":
		if !f.csrfOK {
			return errCSRF()
		}
		b, err := io.ReadAll(io.LimitReader(part, maxSplitBytes+1))
		if err != nil {
			return err
		}
		if len(b) > maxSplitBytes {
			return httpErr(http.StatusRequestEntityTooLarge, "split file larger than %d bytes", maxSplitBytes)
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

// uploadFile parses and validates the "file" part into f.cp, naming the
// corpus after the file when the form gave no name.
func (s *Server) uploadFile(f *uploadForm, part *multipart.Part) error {
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
		return httpErr(http.StatusBadRequest, "more than one \"file\" field: upload one corpus at a time")
	}
	parsed, err := app.ImportCorpus(part, f.name, f.format, s.cfg.MaxCorpus)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		if errors.Is(err, corpus.ErrTooLarge) {
			return httpErr(http.StatusRequestEntityTooLarge, "%v", err)
		}
		return httpErr(http.StatusBadRequest, "%v", err)
	}
	f.cp = parsed
	return nil
}

// maxSplitBytes bounds an uploaded split file.
const maxSplitBytes = 64 << 20

// storeUpload stores an uploaded corpus with its split: the split file's when
// one came with it (checked against the documents: every id known, assigned
// once, and all documents assigned), else none (training then draws the random
// split of corpus.DefaultSplitSeed).
func (s *Server) storeUpload(c echo.Context, cp *corpus.Corpus, splitText []byte) (*CorpusRow, error) {
	var split corpus.Split
	if len(bytes.TrimSpace(splitText)) > 0 {
		var err error
		if split, err = app.ReadSplit(bytes.NewReader(splitText), cp); err != nil {
			return nil, httpErr(http.StatusBadRequest, "split file: %v", err)
		}
	}
	row, err := s.store.InsertCorpus(c.Request().Context(), cp, computeStats(cp), split, false)
	if err != nil {
		return nil, err
	}
	s.log.Info("corpus uploaded", "id", row.ID, "name", row.Name, "docs", row.Docs, "tags", row.Tags,
		"format", row.Format, "detected", row.Detected, "split", len(split.Train) > 0,
		"dropped", cp.Dropped, "skipped", len(cp.Skipped))
	return row, nil
}
