package server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/taglens/taglens/ml/corpus"
)

// TestUploadSkipsOverCap: an upload with a document over the tag cap is
// stored without it (it refused the whole file before: "line 61: document has
// more than 10000 tags"); the API's corpus and the corpus page say what was
// left out and where.
func TestUploadSkipsOverCap(t *testing.T) {
	ts := newTestServer(t, Config{})
	var b strings.Builder
	b.Write(smallTSV())
	b.WriteString("genome")
	for i := range corpus.DefaultMaxTagsPerDoc + 1 {
		b.WriteString("\tg" + strconv.Itoa(i))
	}
	b.WriteString("\nempty\t\n")
	rec := ts.upload("genes.tsv", []byte(b.String()))
	if rec.Code != http.StatusCreated {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body.String())
	}
	id := decode[corpusJSON](t, rec).ID
	got := decode[corpusDetailJSON](t, ts.do(http.MethodGet, "/api/corpora/"+id, nil, ""))
	if got.Docs != 60 || got.Dropped != 1 || got.Skipped != 1 || len(got.SkippedLines) != 1 || got.SkippedLines[0] != 61 || got.TagCap != 10000 {
		t.Errorf("corpus: %d documents, dropped %d, skipped %d on lines %v (cap %d); want 60, 1, 1 on [61] (10000)",
			got.Docs, got.Dropped, got.Skipped, got.SkippedLines, got.TagCap)
	}
	doc, _ := ts.page("/corpora/" + id)
	want := "Left out when the file was read: 1 document without tags; 1 document with more than 10000 tags skipped (line 61)."
	if text := strings.Join(strings.Fields(testid(doc, "corpus-left-out").Text()), " "); text != want {
		t.Errorf("corpus page: %q, want %q", text, want)
	}
}
