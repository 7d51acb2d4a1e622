package server

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/taglens/taglens/internal/testkit"
	"github.com/taglens/taglens/ml/corpus"
)

// labelMatrix is a 0/1 label matrix with an id column and 6 documents; row
// (1-based, the header being row 0) is replaced when it is not "".
func labelMatrix(row int, cells string) string {
	lines := []string{"id,rock,jazz,pop,folk", "d1,1,0,0,1", "d2,0,1,0,0", "d3,0,0,1,0", "d4,1,0,0,1", "d5,0,1,0,0", "d6,0,0,1,1"}
	if cells != "" {
		lines[row] = cells
	}
	return strings.Join(lines, "\n") + "\n"
}

// badInputServer is a test server whose limit on decompressed corpora is 8 MiB.
const testMaxCorpus = 8 << 20

func (ts *testServer) count(path string) int {
	ts.t.Helper()
	rec := ts.do(http.MethodGet, path, nil, "")
	if rec.Code != http.StatusOK {
		ts.t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
	return len(decode[[]map[string]any](ts.t, rec))
}

// TestBadInputAPI sends bad corpora and bad JSON bodies to the API. Each must
// be refused with the right status and a message naming the line (when there is
// one) and the reason, and must store nothing.
// Kept in one function: it is table-driven, long tables of bad inputs and short
// loops over them.
func TestBadInputAPI(t *testing.T) {
	ts := newTestServer(t, Config{MaxUpload: 16 << 20, MaxCorpus: testMaxCorpus})
	// One stored corpus, for the JSON cases that need a real corpus id.
	rec := ts.upload("good.tsv", smallTSV())
	if rec.Code != http.StatusCreated {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body.String())
	}
	corpusID := decode[corpusJSON](t, rec).ID

	good := testkit.Gzip(t, string(smallTSV()))
	damaged := append([]byte(nil), good...)
	damaged[len(damaged)-6] ^= 0xff // the CRC-32 in the trailer
	// The bomb: 10 lines of 1 MiB (one tag repeated), about 10 KiB compressed,
	// over the 8 MiB limit.
	bomb := testkit.Gzip(t, strings.Repeat("x"+strings.Repeat(",x", 512<<10)+"\n", 10))
	if len(bomb) > 64<<10 {
		t.Fatalf("the bomb is %d bytes compressed", len(bomb))
	}
	tooManyTags := "a\tx\nb"
	for i := range corpus.DefaultMaxTagsPerDoc + 1 {
		tooManyTags += "\tt" + strconv.Itoa(i)
	}
	tag300 := strings.Repeat("t", 300)

	type upload struct {
		name     string
		filename string
		content  []byte
		fields   [][2]string
		status   int
		want     []string // substrings of the error
	}
	uploads := []upload{
		{"matrix with a 2", "m.csv", []byte(labelMatrix(3, "d3,0,0,2,0")), nil, 400,
			[]string{"line 4:", "0/1 label matrix", `column "pop"`, `the cell "2" is not 0 or 1`, "choose the format explicitly"}},
		{"ragged matrix row", "m.csv", []byte(labelMatrix(5, "d5,0,1")), nil, 400,
			[]string{"line 6:", "this row has 3 cells", "header of 5 columns", "choose the format explicitly"}},
		{"matrix with a 2, format matrix", "m.csv", []byte(labelMatrix(3, "d3,0,0,2,0")), [][2]string{{"format", "matrix"}}, 400,
			[]string{`line 4: column "pop": cell "2" is not 0 or 1`}},
		{"matrix with a 2 after blank lines", "m.csv", []byte("\n\n" + labelMatrix(2, "d2,0,yes,0,0")), nil, 400,
			[]string{"line 5:", `column "jazz"`, `"yes"`}},
		{"small matrix with a 0.5", "m.csv", []byte("rock,jazz,pop,folk\n1,0,0,1\n0,1,0,0.5\n"), nil, 400,
			[]string{"line 3:", "0/1 label matrix", `the cell 0.5 in column 4 ("folk") is not 0 or 1: a label matrix holds 0 or 1`, "choose the format explicitly"}},
		{"small ragged matrix", "m.csv", []byte("id,rock,jazz,pop\na,1,0,1\nb,0,1\n"), nil, 400,
			[]string{"line 3:", "0/1 label matrix", "row 2 has 3 cells, the header 4", "choose the format explicitly"}},
		{"gzip checksum", "c.tsv.gz", damaged, nil, 400, []string{"gzip: checksum mismatch"}},
		{"gzip truncated", "c.tsv.gz", good[:len(good)/2], nil, 400, []string{"gzip: the stream is truncated"}},
		{"gzip bad header", "c.gz", []byte{0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 0, 0}, nil, 400, []string{"gzip: invalid header"}},
		{"gzip bomb", "bomb.gz", bomb, nil, 413, []string{"gzip: the decompressed corpus is larger than the limit of 8 MiB (8388608 bytes)"}},
		{"gzip of invalid UTF-8", "c.gz", testkit.Gzip(t, "a\trock\nb\tro\xffck\n"), nil, 400, []string{"line 2: not UTF-8 at byte 11"}},
		{"zstd", "c.zst", []byte{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3}, nil, 400, []string{"zstd-compressed; only gzip is read"}},
		{"empty file", "e.tsv", nil, nil, 400, []string{"empty corpus: no documents"}},
		{"only blank lines", "e.tsv", []byte("\n  \n\t\n\r\n"), nil, 400, []string{"empty corpus"}},
		{"NUL byte", "n.tsv", []byte("a\trock\nb\tro\x00ck\n"), nil, 400, []string{"line 2:", "NUL byte"}},
		{"invalid UTF-8", "u.tsv", []byte("a\trock\nb\tro\xc3\x28ck\n"), nil, 400, []string{"line 2: not UTF-8 at byte 11"}},
		{"300-byte tag", "t.tsv", []byte("a\trock\nb\t" + tag300 + "\n"), nil, 400,
			[]string{"line 2: tag of 300 bytes (limit 256)", `"tttttttt`, "…"}},
		{"line over the limit", "l.txt", []byte("rock,jazz\n" + strings.Repeat("y", corpus.DefaultMaxLineBytes+1) + "\n"), nil, 400,
			[]string{"line 2: line longer than 4194304 bytes"}},
		{"duplicate ids", "d.tsv", []byte("a\trock\nb\tjazz\na\tpop\n"), nil, 400, []string{`line 3: duplicate document id "a" (first on line 1)`}},
		{"empty id", "d.tsv", []byte("a\trock\n\tjazz\n"), nil, 400, []string{"line 2: empty document id"}},
		{"too many tags", "d.tsv", []byte(tooManyTags), nil, 400, []string{"only 1 document", "1 document with more than 10000 tags skipped (line 2)"}},
		{"malformed JSONL", "j.jsonl", []byte(`{"id":1,"tags":["a"]}` + "\n" + `{"id":2,"tags":["b"` + "\n"), nil, 400, []string{"line 2: invalid JSON"}},
		{"JSONL without tags", "j.jsonl", []byte(`{"id":1,"tags":["a"]}` + "\n" + `{"id":2,"labels":["b"]}` + "\n"), nil, 400, []string{`line 2: no "tags" array`}},
		{"JSONL with only one document without U+202E", "j.jsonl", []byte(`{"id":1,"tags":["a"]}` + "\n" + `{"id":2,"tags":["evil\u202egnp.exe"]}` + "\n"), nil, 400,
			[]string{"only 1 document", "1 document with a bidirectional formatting character in a tag skipped (line 2)"}},
		{"JSONL tag with a BEL", "j.jsonl", []byte(`{"id":1,"tags":["a\u0007"]}` + "\n"), nil, 400, []string{"line 1:", "control character U+0007"}},
		{"ARFF without @data", "a.arff", []byte("@relation r\n@attribute a {0,1}\n@attribute b {0,1}\n"), nil, 400, []string{"ARFF has no @data section"}},
		{"ARFF bad sparse entry", "a.arff", []byte("@relation r\n@attribute a {0,1}\n@attribute b {0,1}\n@data\n{0 1}\n{9 1}\n"), nil, 400,
			[]string{`line 6: bad sparse entry "9 1"`}},
		{"ARFF label not 0/1", "a.arff", []byte("@relation r\n@attribute a {0,1}\n@attribute b {0,1}\n@data\n1,0\n1,2\n"), nil, 400,
			[]string{`line 6: label "b": value "2" is not 0 or 1`}},
		{"CSV unbalanced quotes", "c.csv", []byte("id,tags\n1,rock\n2,\"jazz;pop\n3,folk\n"), nil, 400, []string{"line 3:", `extraneous or missing " in quoted-field`, "still open on line 4"}},
		{"unknown format name", "c.tsv", smallTSV(), [][2]string{{"format", "xml"}}, 400, []string{`unknown format "xml"`}},
		{"format after the file", "c.tsv", smallTSV(), [][2]string{{"after:format", "bogus"}}, 400,
			[]string{`field "format" comes after the file: it must come before the "file" field`}},
		{"name after the file", "c.tsv", smallTSV(), [][2]string{{"after:name", "late"}}, 400,
			[]string{`field "name" comes after the file`}},
		{"unknown format field", "c.tsv", smallTSV(), [][2]string{{"format", "bogus"}}, 400,
			[]string{`field "format": corpus: unknown format "bogus" (want one of tsv, lines, csv, jsonl, matrix, arff)`}},
		{"empty split file", "c.tsv", smallTSV(), [][2]string{{"after:file:split", ""}}, 400, []string{`split file "split.tsv" is empty`}},
		{"blank split file", "c.tsv", smallTSV(), [][2]string{{"after:file:split", "\n \n"}}, 400, []string{`split file "split.tsv" is empty`}},
		{"one document", "c.tsv", []byte("a\trock\tjazz\n"), nil, 400, []string{"only 1 document"}},
		{"no tagged document", "c.tsv", []byte("a\t\nb\t \n"), nil, 400, []string{"none of its 2 documents has a tag"}},
	}
	for _, tc := range uploads {
		t.Run("upload/"+tc.name, func(t *testing.T) {
			before := ts.count("/api/corpora")
			body, ct := formBody(t, tc.fields, tc.filename, tc.content)
			rec := ts.do(http.MethodPost, "/api/corpora", body, ct)
			checkError(t, rec, tc.status, tc.want)
			if after := ts.count("/api/corpora"); after != before {
				t.Errorf("corpora: %d before, %d after a refused upload", before, after)
			}
		})
	}
	// Requests that are not uploads of a file at all.
	t.Run("upload/not multipart", func(t *testing.T) {
		rec := ts.do(http.MethodPost, "/api/corpora", strings.NewReader("a\tb\n"), "text/plain")
		checkError(t, rec, 400, []string{"multipart/form-data"})
	})
	t.Run("upload/no file field", func(t *testing.T) {
		body, ct := multipartBody(t, [][2]string{{"name", "x"}}, "", nil)
		checkError(t, ts.do(http.MethodPost, "/api/corpora", body, ct), 400, []string{`no file: send the corpus as multipart form field "file"`})
	})

	// JSON bodies.
	type jsonCase struct {
		name, method, path, body string
		status                   int
		want                     []string
	}
	jsonCases := []jsonCase{
		{"models: malformed JSON", "POST", "/api/models", `{"corpus_id": "` + corpusID + `",`, 400, []string{"bad JSON body", "unexpected EOF"}},
		{"models: not an object", "POST", "/api/models", `[1, 2]`, 400, []string{"bad JSON body", "cannot unmarshal array"}},
		{"models: corpus_id a number", "POST", "/api/models", `{"corpus_id": 5}`, 400, []string{"bad JSON body", "corpus_id", "number"}},
		{"models: seed a string", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "seed": "one"}`, 400, []string{"bad JSON body", "seed"}},
		{"models: negative seed", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "seed": -1}`, 400, []string{"bad JSON body", "seed"}},
		{"models: unknown field", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "epochs": 3}`, 400, []string{"bad JSON body", `unknown field "epochs"`}},
		{"models: no corpus_id", "POST", "/api/models", `{"name": "x"}`, 400, []string{"corpus_id is required"}},
		{"models: unknown corpus", "POST", "/api/models", `{"corpus_id": "nosuch"}`, 404, []string{`corpus "nosuch" not found`}},
		{"models: topics 100000", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"topics": 100000}}`, 400, []string{"params: topics: 100000: must be in 0..1000"}},
		{"models: hidden 0", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"hidden": [100, 0]}}`, 400, []string{"params: hidden: width 0: must be in 1..4096"}},
		{"models: 7 hidden layers", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"hidden": [1,1,1,1,1,1,1]}}`, 400, []string{"params: hidden: 7 layers: at most 6"}},
		{"models: alpha -1", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"alpha": -1}}`, 400, []string{"params: alpha: -1: must be a finite number ≥ 0"}},
		{"models: lambda 1e300", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"lambda": 1e300}}`, 400, []string{"params: lambda: 1e+300: must be a finite number ≥ 0 and at most 1000"}},
		{"models: alpha 1e6", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"alpha": 1e6}}`, 400, []string{"params: alpha: 1e+06", "at most 1000"}},
		{"models: output_sample -5", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"output_sample": -5}}`, 400, []string{"params: output_sample: -5: must be -1 (the exact loss), 0 (the default) or in 1..100000"}},
		{"models: hidden a string", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"hidden": "100,100"}}`, 400, []string{"bad JSON body", "hidden"}},
		{"models: kappa unknown", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"kappa": "heavy"}}`, 400, []string{`params: kappa: "heavy": must be one of`}},
		{"models: flat_stage1 unknown", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "params": {"flat_stage1": "sometimes"}}`, 400, []string{`params: flat_stage1: "sometimes": must be keep, restart or stop`}},
		{"models: name too long", "POST", "/api/models", `{"corpus_id": "` + corpusID + `", "name": "` + strings.Repeat("n", 201) + `"}`, 400, []string{"name is longer than 200 bytes"}},
		{"models: text/plain body", "POST", "/api/models", "", 415, []string{"Content-Type: application/json"}},
		{"models: trailing JSON", "POST", "/api/models", `{"corpus_id": "` + corpusID + `"} {"corpus_id": "` + corpusID + `"}`, 400, []string{"bad JSON body: more data after the JSON value (at byte"}},
		{"models: trailing garbage", "POST", "/api/models", `{"corpus_id": "` + corpusID + `"}]`, 400, []string{"bad JSON body"}},
		{"prime: unknown model", "POST", "/api/models/nosuch/prime", `{"tags": ["rock"]}`, 404, []string{`model "nosuch" not found`}},
		{"prime: malformed JSON", "POST", "/api/models/nosuch/prime", `{"tags": [`, 400, []string{"bad JSON body"}},
		{"evaluations: no models", "POST", "/api/evaluations", `{"model_ids": []}`, 400, []string{"model_ids: choose at least one trained model"}},
		{"evaluations: unknown model", "POST", "/api/evaluations", `{"model_ids": ["nosuch"]}`, 404, []string{`model "nosuch" not found`}},
		{"evaluations: trials 11", "POST", "/api/evaluations", `{"model_ids": ["nosuch"], "trials": 11}`, 400, []string{"trials must be in 1..10"}},
		{"evaluations: trials 0", "POST", "/api/evaluations", `{"model_ids": ["nosuch"], "trials": 0}`, 400, []string{"trials must be in 1..10 (omit it for the default, 3), got 0"}},
		{"evaluations: missing 99", "POST", "/api/evaluations", `{"model_ids": ["nosuch"], "setting": "incomplete-context", "missing": "99"}`, 400,
			[]string{`missing: eval: missing-rate band "99" is not one of the paper's three: 10 (up to 10 %), 10-30 or 30-50`}},
		{"embed: 10,001 tags", "POST", "/api/models/nosuch/embed", `{"tags": [` + strings.Repeat(`"t",`, 10_000) + `"t"]}`, 413, []string{"tags: 10001 tags, at most 10000 in one request"}},
		{"evaluations: subset unknown", "POST", "/api/evaluations", `{"model_ids": ["nosuch"], "subset": "half"}`, 400, []string{"subset must be train, valid, test, oov or all"}},
		{"evaluations: model_ids a string", "POST", "/api/evaluations", `{"model_ids": "nosuch"}`, 400, []string{"bad JSON body", "model_ids"}},
		{"corpus: unknown id", "GET", "/api/corpora/nosuch", "", 404, []string{`corpus "nosuch" not found`}},
		{"corpus tags: limit 0", "GET", "/api/corpora/" + corpusID + "/tags?limit=0", "", 400, []string{"limit must be an integer in 1..1000"}},
		{"corpus tags: limit not a number", "GET", "/api/corpora/" + corpusID + "/tags?limit=ten", "", 400, []string{"limit must be an integer in 1..1000"}},
		{"corpus delete: unknown id", "DELETE", "/api/corpora/nosuch", "", 404, []string{`corpus "nosuch" not found`}},
	}
	for _, tc := range jsonCases {
		t.Run("json/"+tc.name, func(t *testing.T) {
			corpora, models, jobs := ts.count("/api/corpora"), ts.count("/api/models"), ts.count("/api/jobs")
			var rec *httptest.ResponseRecorder
			if tc.status == http.StatusUnsupportedMediaType {
				rec = ts.do(tc.method, tc.path, strings.NewReader(`{"corpus_id": "`+corpusID+`"}`), "text/plain")
			} else {
				rec = ts.doJSON(tc.method, tc.path, tc.body)
			}
			checkError(t, rec, tc.status, tc.want)
			if c, m, j := ts.count("/api/corpora"), ts.count("/api/models"), ts.count("/api/jobs"); c != corpora || m != models || j != jobs {
				t.Errorf("corpora, models, jobs: %d %d %d before, %d %d %d after a refused request", corpora, models, jobs, c, m, j)
			}
		})
	}
	t.Logf("%d bad uploads, %d bad JSON requests", len(uploads)+2, len(jsonCases))
}

// formBody is multipartBody with parts after the file: a field named
// "after:NAME" is sent after the "file" part, and "file:NAME" (also after
// "after:") is a file part NAME.tsv holding the value.
func formBody(t *testing.T, fields [][2]string, filename string, content []byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	write := func(f [2]string) {
		if name, ok := strings.CutPrefix(f[0], "file:"); ok {
			fw, err := w.CreateFormFile(name, name+".tsv")
			if err != nil {
				t.Fatal(err)
			}
			fw.Write([]byte(f[1]))
			return
		}
		w.WriteField(f[0], f[1])
	}
	for _, f := range fields {
		if !strings.HasPrefix(f[0], "after:") {
			write(f)
		}
	}
	if filename != "" {
		fw, err := w.CreateFormFile("file", filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(content)
	}
	for _, f := range fields {
		if name, ok := strings.CutPrefix(f[0], "after:"); ok {
			write([2]string{name, f[1]})
		}
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

// checkError checks an API error: the status and every substring.
func checkError(t *testing.T, rec *httptest.ResponseRecorder, status int, want []string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, truncateBody(rec.Body.String()))
	}
	msg := decode[map[string]string](t, rec)["error"]
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", truncateBody(msg), w)
		}
	}
	if len(msg) > 400 {
		t.Errorf("error message of %d bytes: %q", len(msg), truncateBody(msg))
	}
}

func truncateBody(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

// TestUploadAcceptedWithReason: a gzip upload is stored, and the corpus JSON
// says how its format was found; the near-matrix of the bad-input test is read
// as lines when the format is named.
func TestUploadAcceptedWithReason(t *testing.T) {
	ts := newTestServer(t, Config{})
	rec := ts.upload("songs.tsv.gz", testkit.Gzip(t, "\n"+string(smallTSV())))
	if rec.Code != http.StatusCreated {
		t.Fatalf("gzip upload: %d %s", rec.Code, rec.Body.String())
	}
	got := decode[corpusJSON](t, rec)
	if got.Docs != 60 || got.Format != "tsv" || got.Detected != "tsv: a tab in line 2 (gzip-compressed)" || got.Name != "songs.tsv" {
		t.Errorf("got %+v, want 60 tsv docs detected by a tab in line 2 (gzip-compressed)", got)
	}
	detail := decode[corpusDetailJSON](t, ts.do(http.MethodGet, "/api/corpora/"+got.ID, nil, ""))
	if detail.Detected != got.Detected {
		t.Errorf("detail: detected %q, want %q", detail.Detected, got.Detected)
	}
	list := decode[[]corpusJSON](t, ts.do(http.MethodGet, "/api/corpora", nil, ""))
	if len(list) != 1 || list[0].Detected != got.Detected {
		t.Errorf("list: %+v", list)
	}
	page := ts.do(http.MethodGet, "/corpora/"+got.ID, nil, "")
	if !strings.Contains(page.Body.String(), "Format detected from the file: tsv: a tab in line 2 (gzip-compressed).") {
		t.Errorf("the corpus page does not say how the format was detected")
	}

	body, ct := multipartBody(t, [][2]string{{"format", "lines"}}, "m.csv", []byte(labelMatrix(3, "d3,0,0,2,0")))
	rec = ts.do(http.MethodPost, "/api/corpora", body, ct)
	if rec.Code != http.StatusCreated {
		t.Fatalf("near-matrix as lines: %d %s", rec.Code, rec.Body.String())
	}
	if got := decode[corpusJSON](t, rec); got.Format != "lines" || got.Detected != "" {
		t.Errorf("named format: got %+v, want lines and no detection reason", got)
	}
}
