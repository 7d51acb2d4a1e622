package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/server/store"
)

// TestTagSearchLarge: a corpus of 100,001 distinct tags is stored with
// bounded statistics (its corpus page and API detail list the 300 most used
// tags, not all of them), and the tag search answers a prefix from the
// server's index of every tag: the most used first, then the inner matches,
// at most limit of them, in well under a millisecond once the index is
// built (the figure is logged).
func TestTagSearchLarge(t *testing.T) {
	ts := newTestServer(t, Config{})
	var b strings.Builder
	for i := range 50_000 {
		// Tags "k000000" … "k099999", two a document, and "Common" on
		// every tenth.
		fmt.Fprintf(&b, "d%d\tk%06d\tk%06d", i, 2*i, 2*i+1)
		if i%10 == 0 {
			b.WriteString("\tCommon")
		}
		b.WriteByte('\n')
	}
	rec := ts.upload("big.tsv", []byte(b.String()))
	if rec.Code != http.StatusCreated {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body.String())
	}
	c := decode[corpusJSON](t, rec)
	if c.Tags != 100_001 {
		t.Errorf("%d tags, want 100001", c.Tags)
	}
	detail := decode[corpusDetailJSON](t, ts.do(http.MethodGet, "/api/corpora/"+c.ID, nil, ""))
	if len(detail.TagCounts) != store.MaxStoredTagCounts || detail.TagCounts[0] != (store.TagCount{Tag: "Common", Count: 5000}) {
		t.Errorf("detail: %d tag counts, first %v", len(detail.TagCounts), detail.TagCounts[0])
	}
	if _, html := ts.page("/corpora/" + c.ID); len(html) > 200_000 || strings.Contains(html, "k099999") {
		t.Errorf("the corpus page is %d bytes, or lists the least used tag", len(html))
	}
	search := func(q string, limit int) []store.TagCount {
		t.Helper()
		return decode[[]store.TagCount](t, ts.do(http.MethodGet, fmt.Sprintf("/api/corpora/%s/tags?q=%s&limit=%d", c.ID, q, limit), nil, ""))
	}
	if got := search("K09999", 5); len(got) != 5 || got[0].Tag != "k099990" || got[4].Tag != "k099994" {
		t.Errorf("K09999: %v", got)
	}
	if got := search("k099999", 5); len(got) != 1 || got[0] != (store.TagCount{Tag: "k099999", Count: 1}) {
		t.Errorf("k099999: %v", got)
	}
	if got := search("omm", 5); len(got) != 1 || got[0].Tag != "Common" {
		t.Errorf("omm: %v", got)
	}
	if got := search("", 3); len(got) != 3 || got[0].Tag != "Common" {
		t.Errorf("empty: %v", got)
	}
	const n = 200
	t0 := time.Now()
	for i := range n {
		if got := search(fmt.Sprintf("k%03d", i%100), 15); len(got) != 15 {
			t.Fatalf("k%03d: %d matches", i%100, len(got))
		}
	}
	t.Logf("tag search over %d tags: %v a request (httptest, JSON included)", c.Tags, time.Since(t0)/n)
}
