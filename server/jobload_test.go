package server

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/taglens/taglens/server/store"
)

// TestJobHistoryLoad (opt-in: TAGLENS_JOBS_LOAD=N) measures /, /api/jobs and
// /models after N finished map jobs and 500 failed trainings (each naming its
// model), as the reproduction left them, at 1, 50 and 100 connections
// for TAGLENS_LOAD_SECONDS (default 5) each. It logs the figures and checks
// there are no errors. The rows are written with plain SQL, so the same test
// runs against an older server.
func TestJobHistoryLoad(t *testing.T) {
	v := os.Getenv("TAGLENS_JOBS_LOAD")
	if v == "" {
		t.Skip("set TAGLENS_JOBS_LOAD=10000 to measure the pages after that many jobs")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1_000_000 {
		t.Fatalf("TAGLENS_JOBS_LOAD=%q: want 1..1000000", v)
	}
	secs := 5
	if v := os.Getenv("TAGLENS_LOAD_SECONDS"); v != "" {
		if secs, err = strconv.Atoi(v); err != nil || secs < 1 || secs > 600 {
			t.Fatalf("TAGLENS_LOAD_SECONDS=%q: want 1..600", v)
		}
	}
	dir := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Now().UnixMilli()
	add := func(id, kind, target string) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, kind, target_id, params_json, state, message, created_at, started_at, finished_at)
			VALUES (?, ?, ?, '{}', 'failed', 'the corpus is too small to split', ?, ?, ?)`, id, kind, target, ms, ms, ms); err != nil {
			t.Fatal(err)
		}
		ms++
	}
	for i := range n {
		add(fmt.Sprintf("map%07d", i), "map", "m")
	}
	for i := range 500 {
		id := fmt.Sprintf("tr%07d", i)
		add(id, "train", "m"+id)
		if _, err := tx.ExecContext(ctx, `INSERT INTO models (id, corpus_id, name, seed, params_json, state, job_id, created_at)
			VALUES (?, 'c', ?, 1, '{}', 'failed', ?, ?)`, "m"+id, "model "+id, id, ms); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	start := time.Now()
	ts := openTestServer(t, dir, Config{})
	t.Logf("%d map jobs and 500 failed trainings stored; the server started in %v", n, time.Since(start).Round(time.Millisecond))
	var left int
	ts.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs`).Scan(&left)
	t.Logf("jobs in the history after the start: %d", left)
	base := liveServer(t, ts)
	for _, path := range []string{"/", "/api/jobs", "/models"} {
		for _, conns := range []int{1, 50, 100} {
			res, err := loadTest(ctx, base+path, conns, time.Duration(secs)*time.Second, 10_000_000, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("GET %s, %d connections: %v", path, conns, res)
			if res.Errors != 0 {
				t.Errorf("GET %s, %d connections: %d errors", path, conns, res.Errors)
			}
		}
	}
	t.Logf("load average after: %s", loadAverage())
}
