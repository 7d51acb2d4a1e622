package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/server/store"
)

// corpusInUse is a fresh server with an uploaded corpus that a model uses (the
// model row only: nothing is trained).
func corpusInUse(t *testing.T) (*testServer, string) {
	t.Helper()
	ts := newTestServer(t, Config{})
	c := decode[corpusJSON](t, ts.upload("songs.tsv", smallTSV()))
	m := &store.ModelRow{CorpusID: c.ID, Name: "the model", Seed: 1, Params: []byte(`{}`)}
	if err := ts.store.InsertModel(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return ts, c.ID
}

// htmxDelete sends DELETE path as htmx does from a page: same-origin, with the
// page's CSRF cookie and its token in X-CSRF-Token (unless token is false).
func (ts *testServer) htmxDelete(path string, token bool) *http.Response {
	ts.t.Helper()
	ck, tok := ts.pageCSRF()
	req := newRequest(http.MethodDelete, path, nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("Origin", "http://"+testHost)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if token {
		req.Header.Set("X-CSRF-Token", tok)
	}
	req.AddCookie(ck)
	return httptestRecorder(ts, req).Result()
}

// TestCorpusDeleteInUseShowsReason: the corpus page's Delete button targets a
// page route whose answer htmx swaps into the card, so refusing to delete a
// corpus a model uses shows why, and a successful delete goes to the list.
func TestCorpusDeleteInUseShowsReason(t *testing.T) {
	ts, id := corpusInUse(t)
	doc, _ := ts.page("/corpora/" + id)
	btn := doc.Find(`[data-testid="delete-corpus"]`)
	url, _ := btn.Attr("hx-delete")
	target, _ := btn.Attr("hx-target")
	if url != "/corpora/"+id || target == "" {
		t.Fatalf("delete button: hx-delete %q, hx-target %q; want /corpora/%s and a target for the answer", url, target, id)
	}
	if _, ok := btn.Attr("data-redirect"); ok {
		t.Error("delete button: data-redirect would navigate away whatever the answer")
	}
	if doc.Find(target).Length() != 1 {
		t.Fatalf("delete button: its target %q is not on the page", target)
	}

	res := ts.htmxDelete(url, true)
	body := readAll(t, res)
	if res.StatusCode != http.StatusOK || res.Header.Get("X-Status") != "409" {
		t.Fatalf("delete in use: status %d, X-Status %q, want 200 carrying 409 (htmx swaps only 2xx)", res.StatusCode, res.Header.Get("X-Status"))
	}
	frag, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	box := frag.Find(`[role="alert"][data-testid="error"]`)
	if box.Length() != 1 || !strings.Contains(box.Text(), "the model") || !strings.Contains(box.Text(), "delete the model first") {
		t.Fatalf("delete in use: fragment %q, want an alert naming the model and what to do", body)
	}
	if rec := ts.doJSON(http.MethodGet, "/api/corpora/"+id, ""); rec.Code != 200 {
		t.Fatalf("the corpus in use is gone: %d", rec.Code)
	}

	// Without the CSRF token the page route refuses.
	if res := ts.htmxDelete(url, false); res.Header.Get("X-Status") != "403" && res.StatusCode != http.StatusForbidden {
		t.Errorf("delete without a token: status %d, X-Status %q, want 403", res.StatusCode, res.Header.Get("X-Status"))
	}

	// A corpus no model uses is deleted and htmx is sent to the list.
	free := decode[corpusJSON](t, ts.upload("free.tsv", smallTSV()))
	res = ts.htmxDelete("/corpora/"+free.ID, true)
	if res.StatusCode/100 != 2 || res.Header.Get("HX-Redirect") != "/corpora" {
		t.Errorf("delete free corpus: status %d, HX-Redirect %q, want 2xx and /corpora", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
	if rec := ts.doJSON(http.MethodGet, "/api/corpora/"+free.ID, ""); rec.Code != 404 {
		t.Errorf("the deleted corpus: GET %d, want 404", rec.Code)
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBrowserCorpusDeleteInUse clicks Delete on a corpus a model uses in
// Chromium: the reason appears in the card and the page stays.
func TestBrowserCorpusDeleteInUse(t *testing.T) {
	ctx := browser(t)
	ts, id := corpusInUse(t)
	base := liveServer(t, ts)
	step(t, ctx, "delete", 30*time.Second,
		chromedp.Navigate(base+"/corpora/"+id),
		chromedp.WaitVisible(tid("delete-corpus")),
		chromedp.Evaluate[chromedp.Void](`window.confirm = function () { return true; }`),
		chromedp.Click(tid("delete-corpus")),
		chromedp.WaitVisible(`[data-testid="delete-result"] [data-testid="error"]`),
	)
	msg, err := chromedp.Run(ctx, chromedp.Text(`[data-testid="delete-result"]`))
	if err != nil || !strings.Contains(msg, "delete the model first") {
		t.Errorf("shown reason: got %q (%v), want the model named", msg, err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(loc, "/corpora/"+id) {
		t.Errorf("location after the refused delete: %q (%v), want the corpus page still", loc, err)
	}
}

// TestDeleteReturnsSpace: deleting a large corpus shrinks the database file's
// pages (incremental vacuum), so uploads followed by deletions do not grow it
// for ever.
func TestDeleteReturnsSpace(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	pages := func() (n, free int) {
		t.Helper()
		if err := st.DB().QueryRowContext(ctx, `PRAGMA page_count`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := st.DB().QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
			t.Fatal(err)
		}
		return n, free
	}
	before, _ := pages()
	c := &corpus.Corpus{Name: "big"}
	for i := 0; i < 20000; i++ {
		c.Docs = append(c.Docs, corpus.Document{ID: fmt.Sprintf("d%05d", i), Tags: []string{"rock", "pop", fmt.Sprintf("t%d", i%500), "a fairly long tag to take some room"}})
	}
	row, err := st.InsertCorpus(ctx, c, store.StatsOf(c), corpus.Split{}, false)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := pages()
	if err := st.DeleteCorpus(ctx, row.ID); err != nil {
		t.Fatal(err)
	}
	after, free := pages()
	if full < before+20 || after > before+(full-before)/10 || free != 0 { // the corpus: 24 pages of compact parts (577 as rows of JSON)
		t.Errorf("pages: %d empty, %d with the corpus, %d after deleting it (%d free); want the space returned", before, full, after, free)
	}
}
