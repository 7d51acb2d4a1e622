package server

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"

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
	MeanTags    float64          `json:"mean_tags"`
	TagCounts   []store.TagCount `json:"tag_counts"`
	Cardinality []int            `json:"cardinality"`
	Split       splitJSON        `json:"split"`
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
		corpusJSON: toCorpusJSON(r), MeanTags: r.Stats.MeanTags, TagCounts: r.Stats.TagCounts,
		Cardinality: r.Stats.Cardinality,
		Split:       splitJSON{len(r.Split.Train), len(r.Split.Valid), len(r.Split.Test), len(r.Split.OOV)},
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
// containing q (prefix matches first), most used first.
func (h *corporaAPI) tags(c echo.Context) error {
	id := c.Param("id")
	r, err := h.s.store.Corpus(c.Request().Context(), id)
	if err != nil {
		return notFound(err, "corpus", id)
	}
	return tagMatches(c, r.Stats.TagCounts)
}

// tagMatches answers a tag autocomplete request (query q, limit 1..1000,
// default 20) from a corpus's tag counts.
func tagMatches(c echo.Context, counts []store.TagCount) error {
	limit := 20
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return app.BadInput("limit", "must be an integer in 1..1000")
		}
		limit = n
	}
	return c.JSON(http.StatusOK, matchTags(counts, c.QueryParam("q"), limit))
}

// matchTags returns up to limit tags containing q case-insensitively: prefix
// matches before inner matches, each group in the given (frequency) order.
func matchTags(all []store.TagCount, q string, limit int) []store.TagCount {
	q = strings.ToLower(strings.TrimSpace(q))
	out := make([]store.TagCount, 0, limit)
	var inner []store.TagCount
	for _, tc := range all {
		if len(out) >= limit {
			break
		}
		lt := strings.ToLower(tc.Tag)
		switch {
		case strings.HasPrefix(lt, q):
			out = append(out, tc)
		case len(inner) < limit && strings.Contains(lt, q):
			inner = append(inner, tc)
		}
	}
	for _, tc := range inner {
		if len(out) >= limit {
			break
		}
		out = append(out, tc)
	}
	return out
}

// sortedTags returns the tag names of counts in alphabetical order.
func sortedTags(counts []store.TagCount) []string {
	out := make([]string, len(counts))
	for i, tc := range counts {
		out[i] = tc.Tag
	}
	sort.Strings(out)
	return out
}

var errNoFile = errors.New(`no file: send the corpus as multipart form field "file"`)
