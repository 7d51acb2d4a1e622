package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/ml/corpus"
)

// TestUploadProgress: while an upload streams in, GET /api/uploads/{id}
// (the id of its upload_id parameter or X-Upload-Id header) and GET
// /api/uploads say how far it is: its stage, the bytes received and
// unpacked and the documents read; another upload under the same id is
// refused (409), a malformed id is a 400, and once the upload is answered
// its progress is gone (404).
func TestUploadProgress(t *testing.T) {
	ts := newTestServer(t, Config{})
	var b strings.Builder
	n := 3*corpus.ProgressEvery + 10
	for i := range n {
		fmt.Fprintf(&b, "d%d\trock\tt%d\n", i, i%40)
	}
	full, ct := multipartBody(t, nil, "big.tsv", []byte(b.String()))
	raw := full.Bytes()
	cut := bytes.Index(raw, []byte(fmt.Sprintf("d%d\t", 2*corpus.ProgressEvery+5)))
	pr, pw := io.Pipe()
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- ts.do(http.MethodPost, "/api/corpora?upload_id=up-1", pr, ct) }()
	if _, err := pw.Write(raw[:cut]); err != nil {
		t.Fatal(err)
	}
	var got uploadJSON
	for wait := time.Now(); got.Docs < corpus.ProgressEvery; time.Sleep(5 * time.Millisecond) {
		if time.Since(wait) > 10*time.Second {
			t.Fatalf("no progress reported: %+v", got)
		}
		rec := ts.do(http.MethodGet, "/api/uploads/up-1", nil, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /api/uploads/up-1: %d %s", rec.Code, rec.Body.String())
		}
		got = decode[uploadJSON](t, rec)
	}
	if got.ID != "up-1" || got.Name != "big" || got.Stage != uploadReading || got.ReceivedBytes <= 0 || got.ReceivedBytes > int64(cut) ||
		got.UnpackedBytes <= 0 || got.UnpackedBytes > got.ReceivedBytes {
		t.Errorf("progress %+v", got)
	}
	if list := decode[[]uploadJSON](t, ts.do(http.MethodGet, "/api/uploads", nil, "")); len(list) != 1 || list[0].ID != "up-1" {
		t.Errorf("GET /api/uploads: %+v", list)
	}
	// The same id again, while the first runs: 409; a bad id: 400.
	other, ct2 := multipartBody(t, [][2]string{{"name", "other"}}, "other.tsv", smallTSV())
	req := newRequest(http.MethodPost, "/api/corpora", other)
	req.Header.Set("Content-Type", ct2)
	req.Header.Set(uploadIDHeader, "up-1")
	rec := httptest.NewRecorder()
	ts.handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "in use") {
		t.Errorf("same id: %d %s, want 409", rec.Code, rec.Body.String())
	}
	bad, ct3 := multipartBody(t, nil, "other.tsv", smallTSV())
	if rec := ts.do(http.MethodPost, "/api/corpora?upload_id=a/b", bad, ct3); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "upload id") {
		t.Errorf("bad id: %d %s, want 400", rec.Code, rec.Body.String())
	}
	if _, err := pw.Write(raw[cut:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	select {
	case rec := <-done:
		if rec.Code != http.StatusCreated || decode[corpusJSON](t, rec).Docs != n {
			t.Fatalf("upload: %d %s", rec.Code, rec.Body.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("upload: no answer")
	}
	if rec := ts.do(http.MethodGet, "/api/uploads/up-1", nil, ""); rec.Code != http.StatusNotFound {
		t.Errorf("after the answer: %d %s, want 404", rec.Code, rec.Body.String())
	}
	if list := decode[[]uploadJSON](t, ts.do(http.MethodGet, "/api/uploads", nil, "")); len(list) != 0 {
		t.Errorf("GET /api/uploads after the answer: %+v", list)
	}
}
