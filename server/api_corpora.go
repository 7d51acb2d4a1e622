package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/taglens/taglens/internal/app"
	"github.com/taglens/taglens/server/store"
)

type corporaAPI struct{ s *Server }

// corpusJSON is the API form of a corpus.
type corpusJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Docs      int    `json:"docs"`
	Tags      int    `json:"tags"`
	Format    string `json:"format"`
	Detected  string `json:"detected,omitempty"` // why the format was chosen; absent when the upload named it
	Builtin   bool   `json:"builtin"`
	CreatedAt string `json:"created_at"`
}

type corpusDetailJSON struct {
	corpusJSON
	MeanTags  float64          `json:"mean_tags"`
	TagCounts []store.TagCount `json:"tag_counts"` // the store.MaxStoredTagCounts most used
	// TagUseTail samples the rest of the tag-use curve (rank, count).
	TagUseTail  []store.RankCount `json:"tag_use_tail,omitempty"`
	Cardinality []int             `json:"cardinality"`
	Split       splitJSON         `json:"split"`
	// Documents of the file left out: without tags, and over the tag cap
	// (with the first lines of these).
	Dropped      int   `json:"dropped_docs"`
	Skipped      int   `json:"skipped_docs"`
	SkippedLines []int `json:"skipped_lines,omitempty"`
	TagCap       int   `json:"tag_cap,omitempty"`
	// Documents skipped for a bidirectional formatting character in a tag
	// (docs/security.md), with the first lines of these.
	BidiSkipped int   `json:"bidi_skipped_docs"`
	BidiLines   []int `json:"bidi_skipped_lines,omitempty"`
}

type splitJSON struct {
	Train int `json:"train"`
	Valid int `json:"valid"`
	Test  int `json:"test"`
	OOV   int `json:"oov"`
}

func toCorpusJSON(r *store.CorpusRow) corpusJSON {
	return corpusJSON{ID: r.ID, Name: r.Name, Docs: r.Docs, Tags: r.Tags, Format: r.Format, Detected: r.Detected, Builtin: r.Builtin,
		CreatedAt: r.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")}
}

// create: POST /api/corpora (multipart "file", optional "name" and "format"):
// 201 with the new corpus, or 200 with the stored one when the same upload
// was stored before (a retry).
func (h *corporaAPI) create(c echo.Context) error {
	row, existed, err := h.s.uploadCorpus(c)
	if err != nil {
		return err
	}
	if existed {
		return c.JSON(http.StatusOK, toCorpusJSON(row))
	}
	return c.JSON(http.StatusCreated, toCorpusJSON(row))
}

func (h *corporaAPI) list(c echo.Context) error {
	rows, err := h.s.store.Corpora(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]corpusJSON, 0, len(rows))
	for _, r := range rows {
		out = append(out, toCorpusJSON(r))
	}
	return c.JSON(http.StatusOK, out)
}

func (h *corporaAPI) get(c echo.Context) error {
	id := c.Param("id")
	r, err := h.s.store.Corpus(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "corpus", id)
	}
	return c.JSON(http.StatusOK, corpusDetailJSON{
		corpusJSON: toCorpusJSON(r), MeanTags: r.Stats.MeanTags, TagCounts: r.Stats.TagCounts, TagUseTail: r.Stats.TagUseTail,
		Cardinality: r.Stats.Cardinality,
		Split:       splitJSON(r.SplitSizes),
		Dropped:     r.Stats.Dropped, Skipped: r.Stats.Skipped, SkippedLines: r.Stats.SkippedLines, TagCap: r.Stats.TagCap,
		BidiSkipped: r.Stats.BidiSkipped, BidiLines: r.Stats.BidiLines,
	})
}

func (h *corporaAPI) delete(c echo.Context) error {
	if err := h.s.deleteCorpus(c.Request().Context(), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// deleteCorpus deletes a corpus no model uses; a corpus in use is a 409
// naming every model that uses it (corpusInUseErr).
func (s *Server) deleteCorpus(ctx context.Context, id string) error {
	if _, err := s.store.Corpus(ctx, id); err != nil {
		return notFound(err, "corpus", id)
	}
	if used, err := s.corpusModels(ctx, id); err != nil {
		return err
	} else if len(used) > 0 {
		return corpusInUseErr(id, used)
	}
	if err := s.store.DeleteCorpus(ctx, id); err != nil {
		return notFound(err, "corpus", id)
	}
	s.maps.dropCorpus(id)
	return nil
}

// tags: GET /api/corpora/:id/tags?q=PREFIX&limit=N — tag autocomplete: tags
// containing q (prefix matches first), most used first, from the corpus's
// tag index (store.TagIndex: a binary search over every tag, held in memory).
func (h *corporaAPI) tags(c echo.Context) error {
	return h.s.tagMatches(c, c.Param("id"))
}

// tagMatches answers a tag autocomplete request (query q, limit 1..1000,
// default 20) from the tag index of corpus id.
func (s *Server) tagMatches(c echo.Context, id string) error {
	limit := 20
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return app.BadInput("limit", "must be an integer in 1..1000")
		}
		limit = n
	}
	x, err := s.store.TagIndex(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "corpus", id)
	}
	return c.JSON(http.StatusOK, x.Match(c.QueryParam("q"), limit))
}

var errNoFile = errors.New(`no file: send the corpus as multipart form field "file"`)
