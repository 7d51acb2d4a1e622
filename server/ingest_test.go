package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestUploadSkipsBidi: an upload with a document whose tag holds a
// bidirectional formatting character (cldr-emoji's Arabic lines hold U+202B;
// the whole file was refused with 400 before) is stored without it, with a
// split file that names it; the API's corpus and the corpus page say what
// was left out and where, and neither the page nor the stored corpus holds
// the character.
func TestUploadSkipsBidi(t *testing.T) {
	ts := newTestServer(t, Config{})
	content := append(smallTSV(), "ar/1F600\tوجه\t\u202bمبتسم\u202c\n"...)
	var split strings.Builder
	for i := range 60 {
		fmt.Fprintf(&split, "d%02d\t%s\n", i, [3]string{"train", "train", "test"}[i%3])
	}
	split.WriteString("ar/1F600\ttrain\n")
	body, ct := multipartBody(t, [][2]string{{"split", split.String()}}, "emoji.tsv", content)
	rec := ts.do(http.MethodPost, "/api/corpora", body, ct)
	if rec.Code != http.StatusCreated {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body.String())
	}
	id := decode[corpusJSON](t, rec).ID
	got := decode[corpusDetailJSON](t, ts.do(http.MethodGet, "/api/corpora/"+id, nil, ""))
	if got.Docs != 60 || got.BidiSkipped != 1 || len(got.BidiLines) != 1 || got.BidiLines[0] != 61 || got.Skipped != 0 || got.Split.Train != 40 {
		t.Errorf("corpus: %d documents, bidi-skipped %d on lines %v, skipped %d, split %+v; want 60, 1 on [61], 0, 40 train",
			got.Docs, got.BidiSkipped, got.BidiLines, got.Skipped, got.Split)
	}
	doc, html := ts.page("/corpora/" + id)
	want := "Left out when the file was read: 1 document with a bidirectional formatting character in a tag skipped (line 61)."
	if text := strings.Join(strings.Fields(testid(doc, "corpus-left-out").Text()), " "); text != want {
		t.Errorf("corpus page: %q, want %q", text, want)
	}
	c, err := ts.store.Documents(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Docs {
		if strings.ContainsAny(d.ID+strings.Join(d.Tags, ""), "\u202b\u202c") {
			t.Errorf("stored document %q holds a bidirectional formatting character", d.ID)
		}
	}
	if strings.ContainsAny(html, "\u202b\u202c") || strings.Contains(html, "مبتسم") {
		t.Error("the corpus page holds the skipped document's tag")
	}
}

// TestUploadRetried: an upload of the same file, name, format and split as a
// stored corpus (a client retrying an upload whose answer it lost) answers
// 200 with the stored corpus and stores nothing; concurrent identical
// uploads store one corpus; another name or split is another corpus, and a
// deleted corpus can be uploaded again. Before, every retry stored a
// duplicate.
func TestUploadRetried(t *testing.T) {
	ts := newTestServer(t, Config{})
	post := func(fields [][2]string, content []byte) *httptest.ResponseRecorder {
		body, ct := multipartBody(t, fields, "small.tsv", content)
		return ts.do(http.MethodPost, "/api/corpora", body, ct)
	}
	count := func() int { return len(decode[[]corpusJSON](t, ts.do(http.MethodGet, "/api/corpora", nil, ""))) }
	first := post(nil, smallTSV())
	if first.Code != http.StatusCreated {
		t.Fatalf("upload: %d %s", first.Code, first.Body.String())
	}
	id := decode[corpusJSON](t, first).ID
	again := post(nil, smallTSV())
	if again.Code != http.StatusOK || decode[corpusJSON](t, again).ID != id || count() != 1 {
		t.Fatalf("retry: %d %s, %d corpora; want 200 with corpus %s, 1 corpus", again.Code, again.Body.String(), count(), id)
	}
	var split strings.Builder
	for i := range 60 {
		fmt.Fprintf(&split, "d%02d\t%s\n", i, [3]string{"train", "train", "test"}[i%3])
	}
	for _, fields := range [][][2]string{{{"name", "other"}}, {{"split", split.String()}}, {{"format", "tsv"}}} {
		rec := post(fields, smallTSV())
		if rec.Code != http.StatusCreated || decode[corpusJSON](t, rec).ID == id {
			t.Errorf("%v: %d %s, want 201 and a new corpus", fields, rec.Code, rec.Body.String())
		}
	}
	if n := count(); n != 4 {
		t.Errorf("%d corpora, want 4", n)
	}

	// Concurrent identical uploads of a new file: one stores it, the others
	// get it.
	content := append(smallTSV(), "d60\trock\tjazz\n"...)
	codes := make(chan int, 6)
	ids := make(chan string, 6)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := post(nil, content)
			codes <- rec.Code
			ids <- decode[corpusJSON](t, rec).ID
		}()
	}
	wg.Wait()
	close(codes)
	close(ids)
	created, seen := 0, map[string]bool{}
	for c := range codes {
		if c == http.StatusCreated {
			created++
		} else if c != http.StatusOK {
			t.Errorf("concurrent upload: status %d", c)
		}
	}
	for id := range ids {
		seen[id] = true
	}
	if created != 1 || len(seen) != 1 || count() != 5 {
		t.Errorf("6 concurrent identical uploads: %d created, %d corpus ids, %d corpora stored; want 1, 1, 5", created, len(seen), count())
	}

	if rec := ts.do(http.MethodDelete, "/api/corpora/"+id, nil, ""); rec.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body.String())
	}
	if rec := post(nil, smallTSV()); rec.Code != http.StatusCreated || decode[corpusJSON](t, rec).ID == id {
		t.Errorf("upload after delete: %d %s, want 201 and a new corpus", rec.Code, rec.Body.String())
	}
}

// TestUploadsParsedOneAtATime checks that a second upload waits while a first
// one is being parsed (so that several large uploads at once cannot add their
// parse budgets up) and is parsed as soon as the first is done.
func TestUploadsParsedOneAtATime(t *testing.T) {
	ts := newTestServer(t, Config{})
	full, ct := multipartBody(t, nil, "slow.tsv", smallTSV())
	raw := full.Bytes()
	cut := bytes.Index(raw, []byte("d30\t")) // well inside the file part
	pr, pw := io.Pipe()
	first := make(chan int, 1)
	go func() { first <- ts.do(http.MethodPost, "/api/corpora", pr, ct).Code }()
	if _, err := pw.Write(raw[:cut]); err != nil {
		t.Fatal(err)
	}
	for wait := time.Now(); len(ts.parsing) == 0; time.Sleep(time.Millisecond) { // the first parse holds its slot
		if time.Since(wait) > 10*time.Second {
			t.Fatal("the first upload never started parsing")
		}
	}
	content := append(smallTSV(), "d60\trock\tjazz\n"...)
	second := make(chan int, 1)
	go func() {
		body, ct := multipartBody(t, [][2]string{{"name", "other"}}, "other.tsv", content)
		second <- ts.do(http.MethodPost, "/api/corpora", body, ct).Code
	}()
	select {
	case code := <-first:
		t.Fatalf("the first upload answered %d before its body ended", code)
	case code := <-second:
		t.Fatalf("the second upload answered %d while the first was being parsed", code)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := pw.Write(raw[cut:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	for name, ch := range map[string]chan int{"first": first, "second": second} {
		select {
		case code := <-ch:
			if code != http.StatusCreated {
				t.Errorf("%s upload: %d, want 201", name, code)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s upload: no answer", name)
		}
	}
}
