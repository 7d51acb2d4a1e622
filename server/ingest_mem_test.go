package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/testkit"
)

// gzipBomb writes a gzip file of line repeated until it unpacks to more than
// size bytes: one member of a MiB of lines, written again and again.
func gzipBomb(t *testing.T, path string, size int64, line string) int64 {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	unit := strings.Repeat(line, max(1, (1<<20)/len(line)))
	zw.Write([]byte(unit))
	zw.Close()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	var total int64
	for ; total <= size; total += int64(len(unit)) {
		w.Write(member.Bytes())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return total
}

// TestUploadGzipBombMemory (opt-in: TAGLENS_MEMTEST=1) uploads gzip files
// that unpack to over 1 GiB and checks that each is refused with a 413
// naming the limit while the process's peak RSS stays under 1 GiB (issue
// 30: a 5.6 MB gzip of 200-tag lines took the server to 4.45 GB). It prints
// the figures.
func TestUploadGzipBombMemory(t *testing.T) {
	if os.Getenv("TAGLENS_MEMTEST") == "" {
		t.Skip("set TAGLENS_MEMTEST=1 to run (uploads gzip bombs of 1 GiB unpacked)")
	}
	var tags200 strings.Builder
	for j := range 200 {
		if j > 0 {
			tags200.WriteByte(',')
		}
		tags200.WriteString("t" + strconv.Itoa(7*j%1000))
	}
	ts := newTestServer(t, Config{})
	dir := t.TempDir()
	for _, bomb := range []struct{ name, line string }{
		{"200-tag lines", tags200.String() + "\n"},
		{"one tag per line", "rock\n"},
		{"lines without tags", ",\n"},
	} {
		t.Run(bomb.name, func(t *testing.T) {
			path := filepath.Join(dir, "bomb.gz")
			unpacked := gzipBomb(t, path, 1<<30, bomb.line)
			st, _ := os.Stat(path)
			// The multipart body streams from the file through a pipe.
			pr, pw := io.Pipe()
			mw := multipart.NewWriter(pw)
			go func() {
				fw, err := mw.CreateFormFile("file", "bomb.gz")
				if err == nil {
					var f *os.File
					if f, err = os.Open(path); err == nil {
						_, err = io.Copy(fw, f)
						f.Close()
					}
				}
				if err == nil {
					err = mw.Close()
				}
				pw.CloseWithError(err)
			}()
			debug.FreeOSMemory()
			base := testkit.PeakRSS(t, true)
			start := time.Now()
			rec := ts.do(http.MethodPost, "/api/corpora?format=lines", pr, mw.FormDataContentType())
			peak := testkit.PeakRSS(t, false)
			pr.Close()
			t.Logf("%s: %.1f MB of gzip unpacking to %.2f GiB: %d in %.1fs, peak RSS %.0f MB (%.0f MB before): %s", bomb.name,
				float64(st.Size())/1e6, float64(unpacked)/(1<<30), rec.Code, time.Since(start).Seconds(), float64(peak)/1e6, float64(base)/1e6,
				strings.TrimSpace(rec.Body.String()))
			if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "limit") {
				t.Errorf("got %d %s, want 413 naming the limit", rec.Code, rec.Body.String())
			}
			if peak >= 1<<30 {
				t.Errorf("peak RSS %d bytes, want under 1 GiB", peak)
			}
		})
	}
}
