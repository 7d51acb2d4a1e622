package server

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taglens/taglens/server/store"
)

func TestUploadCorpus(t *testing.T) {
	ts := newTestServer(t, Config{MaxUpload: 4096})
	rec := ts.upload("songs.tsv", smallTSV())
	if rec.Code != http.StatusCreated {
		t.Fatalf("status: got %d, want 201 (%s)", rec.Code, rec.Body)
	}
	got := decode[corpusJSON](t, rec)
	// 60 documents; tags counted by hand from smallTSV's three theme lists
	// (guitar is shared by two themes): 5 + 5 + 5 − 1 = 14.
	if got.Docs != 60 || got.Tags != 14 || got.Format != "tsv" || got.Name != "songs" || got.ID == "" {
		t.Errorf("got %+v, want 60 docs, 14 tags, format tsv, name songs", got)
	}

	// The name and format fields, before the file, override the defaults.
	csv := []byte("a,b,c\nb,c\nc,d,e\n")
	body, ct := multipartBody(t, [][2]string{{"name", "mine"}, {"format", "lines"}}, "x.txt", csv)
	rec = ts.do(http.MethodPost, "/api/corpora", body, ct)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status: got %d, want 201 (%s)", rec.Code, rec.Body)
	}
	if got := decode[corpusJSON](t, rec); got.Name != "mine" || got.Format != "lines" || got.Docs != 3 {
		t.Errorf("got %+v, want name mine, format lines, 3 docs", got)
	}

	list := decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", ""))
	if len(list) != 2 {
		t.Fatalf("list: got %d corpora, want 2", len(list))
	}
}

func TestUploadErrors(t *testing.T) {
	ts := newTestServer(t, Config{MaxUpload: 2048})
	tests := []struct {
		name    string
		content []byte
		status  int
		substr  string
	}{
		{"NUL byte names its line", []byte("a\tx\ty\nb\tz\tw\n\x00oops\n"), 400, "line 3"},
		{"empty", nil, 400, "empty"},
		{"single document", []byte("a\tx\ty\n"), 400, "2"},
		{"oversized", bytes.Repeat([]byte("doc\ttag\tother\n"), 400), 413, "too large"},
		{"bad JSON line", []byte("{\"id\":\"a\",\"tags\":[\"x\"]}\n{\"id\":\"b\",\"tags\":[\"y\"\n"), 400, "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, ts.upload("c.tsv", tt.content), tt.status, tt.substr)
		})
	}
	// Oversized without a Content-Length (chunked): the reader hits the limit.
	body, ct := multipartBody(t, nil, "c.tsv", bytes.Repeat([]byte("doc\ttag\tother\n"), 400))
	req := newRequest(http.MethodPost, "/api/corpora", body)
	req.Header.Set("Content-Type", ct)
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	ts.handler().ServeHTTP(rec, req)
	wantError(t, rec, 413, "too large")

	wantError(t, ts.do(http.MethodPost, "/api/corpora", strings.NewReader("{}"), "application/json"), 400, "multipart")
	body, ct = multipartBody(t, [][2]string{{"name", "x"}}, "", nil)
	wantError(t, ts.do(http.MethodPost, "/api/corpora", body, ct), 400, "file")

	// Nothing was stored by any failed upload.
	if list := decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", "")); len(list) != 0 {
		t.Errorf("after failed uploads: got %d corpora, want 0", len(list))
	}
}

func TestCorpusGetDeleteTags(t *testing.T) {
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	rec := ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID, "")
	if rec.Code != 200 {
		t.Fatalf("get: %d %s", rec.Code, rec.Body)
	}
	d := decode[corpusDetailJSON](t, rec)
	// smallTSV: document i has 3 + i%3 tags, so 20 documents each of 3, 4 and 5 tags.
	wantCard := []int{0, 0, 0, 20, 20, 20}
	if len(d.Cardinality) != len(wantCard) {
		t.Fatalf("cardinality: got %v, want %v", d.Cardinality, wantCard)
	}
	for i := range wantCard {
		if d.Cardinality[i] != wantCard[i] {
			t.Fatalf("cardinality: got %v, want %v", d.Cardinality, wantCard)
		}
	}
	for i := 1; i < len(d.TagCounts); i++ {
		if d.TagCounts[i].Count > d.TagCounts[i-1].Count {
			t.Fatalf("tag counts not descending: %v", d.TagCounts)
		}
	}
	// guitar is in two themes, so it is the most used tag.
	if d.TagCounts[0].Tag != "guitar" {
		t.Errorf("top tag: got %q, want guitar", d.TagCounts[0].Tag)
	}

	tags := decode[[]store.TagCount](t, ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID+"/tags?q=GU", ""))
	if len(tags) != 1 || tags[0].Tag != "guitar" {
		t.Errorf("autocomplete GU: got %v, want [guitar]", tags)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID+"/tags?limit=0", ""), 400, "limit")
	wantError(t, ts.doJSON(http.MethodGet, "/api/corpora/nosuch", ""), 404, "nosuch")
	wantError(t, ts.doJSON(http.MethodDelete, "/api/corpora/nosuch", ""), 404, "not found")
	if rec := ts.doJSON(http.MethodDelete, "/api/corpora/"+c.ID, ""); rec.Code != http.StatusNoContent {
		t.Fatalf("delete: got %d, want 204", rec.Code)
	}
	wantError(t, ts.doJSON(http.MethodGet, "/api/corpora/"+c.ID, ""), 404, "not found")
}

func TestMatchTagsLarge(t *testing.T) {
	// 10,000 tags: prefix matches come first, then inner matches, limit respected.
	all := make([]store.TagCount, 10000)
	for i := range all {
		all[i] = store.TagCount{Tag: "tag" + strings.Repeat("x", i%7) + string(rune('a'+i%26)), Count: 10000 - i}
	}
	all[5000] = store.TagCount{Tag: "zebra", Count: 1}
	all[5001] = store.TagCount{Tag: "the zebra", Count: 1}
	x := store.NewTagIndex(all)
	got := x.Match("zeb", 10)
	if len(got) != 2 || got[0].Tag != "zebra" || got[1].Tag != "the zebra" {
		t.Errorf("got %v, want [zebra, the zebra]", got)
	}
	if got := x.Match("tag", 15); len(got) != 15 {
		t.Errorf("limit: got %d, want 15", len(got))
	}
}

// TestUploadWithSplit: a split file uploaded with the corpus is stored and used
// by training; a bad one is refused with its line and nothing is stored.
func TestUploadWithSplit(t *testing.T) {
	ts := newTestServer(t, Config{})
	upload := func(split string) *httptest.ResponseRecorder {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		fw, _ := w.CreateFormFile("file", "songs.tsv")
		fw.Write(smallTSV())
		if split != "" {
			sw, _ := w.CreateFormFile("split", "split.tsv")
			sw.Write([]byte(split))
		}
		w.Close()
		return ts.do(http.MethodPost, "/api/corpora", &buf, w.FormDataContentType())
	}
	var good, bad strings.Builder
	for i := 0; i < 60; i++ {
		sub := "train"
		switch i % 5 {
		case 3:
			sub = "valid"
		case 4:
			sub = "test"
		}
		fmt.Fprintf(&good, "d%02d\t%s\n", i, sub)
		if i != 7 {
			fmt.Fprintf(&bad, "d%02d\t%s\n", i, sub)
		}
	}
	fmt.Fprintf(&bad, "d07\ttrian\n")
	wantError(t, upload(bad.String()), http.StatusBadRequest, "split file: corpus: split: line 60: unknown subset \"trian\"")
	if n := len(decode[[]corpusJSON](t, ts.doJSON(http.MethodGet, "/api/corpora", ""))); n != 0 {
		t.Fatalf("a refused upload stored %d corpora", n)
	}
	rec := upload(good.String())
	if rec.Code != http.StatusCreated {
		t.Fatalf("upload with a split: %d %s", rec.Code, rec.Body)
	}
	id := decode[corpusJSON](t, rec).ID
	d := decode[corpusDetailJSON](t, ts.doJSON(http.MethodGet, "/api/corpora/"+id, ""))
	if d.Split.Train != 36 || d.Split.Valid != 12 || d.Split.Test != 12 {
		t.Errorf("stored split: %+v, want 36 train, 12 valid, 12 test", d.Split)
	}
}
