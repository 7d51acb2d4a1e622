package server

import (
	"archive/zip"
	"bytes"
	"net/http"
	"testing"
	"time"
)

// TestProjectorZipDates: the projector zip's entries carry the model's
// creation time, not the zero date that unzip lists as 1980-00-00.
func TestProjectorZipDates(t *testing.T) {
	ts, _, modelID := trainedServer(t)
	row, err := ts.store.Model(t.Context(), modelID)
	if err != nil {
		t.Fatal(err)
	}
	rec := ts.do(http.MethodGet, "/api/models/"+modelID+"/projector", nil, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("projector: %d %s", rec.Code, rec.Body)
	}
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 2 {
		t.Fatalf("%d entries, want tensors.tsv and metadata.tsv", len(zr.File))
	}
	for _, f := range zr.File {
		if d := f.Modified.Sub(row.CreatedAt); d < -2*time.Second || d > 2*time.Second || f.Modified.Year() < 2020 {
			t.Errorf("%s: modified %s, want the model's creation time %s", f.Name, f.Modified, row.CreatedAt)
		}
		if f.Method != zip.Deflate {
			t.Errorf("%s: method %d, want deflate", f.Name, f.Method)
		}
	}
}
