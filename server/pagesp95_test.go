package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taglens/taglens/server/store"
)

// seedJobHistory writes n finished jobs straight into the store of data
// folder dir, with plain SQL (so the same test runs against older servers):
// n−trainings done map jobs and trainings failed trainings, each naming a
// failed model of its own, as the reproduction left them.
func seedJobHistory(t *testing.T, dir string, n, trainings int) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ms := time.Now().Add(-time.Hour).UnixMilli()
	add := func(id, kind, target, state, msg string) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, kind, target_id, params_json, state, message, progress, created_at, started_at, finished_at)
			VALUES (?, ?, ?, '{}', ?, ?, 1, ?, ?, ?)`, id, kind, target, state, msg, ms, ms, ms); err != nil {
			t.Fatal(err)
		}
		ms++
	}
	for i := range n - trainings {
		add(fmt.Sprintf("map%07d", i), "map", "m", store.JobDone, "400 points, KL 0.512")
	}
	for i := range trainings {
		id := fmt.Sprintf("tr%07d", i)
		add(id, "train", "m"+id, store.JobFailed, "the corpus is too small to split")
		if _, err := tx.ExecContext(ctx, `INSERT INTO models (id, corpus_id, name, seed, params_json, state, job_id, created_at)
			VALUES (?, 'c', ?, 1, '{}', 'failed', ?, ?)`, "m"+id, "model "+id, id, ms); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestPagesP95 (opt-in: TAGLENS_P95=1) seeds 10,000 finished jobs (9,500
// map jobs and 500 failed trainings, each naming its model) and drives /,
// /api/jobs and /models from 100 concurrent clients for
// TAGLENS_LOAD_SECONDS (default 5) each, over an httptest server, after a
// second of warm-up; it logs p50 and p95 and fails when a p95 is over
// 50 ms. It runs twice: with the default history (--keep-jobs 200: the
// start prunes it) and with every job kept (--keep-jobs -1).
// TAGLENS_P95_PATHS (comma-separated) measures other paths instead.
//
//	TAGLENS_P95=1 go test ./server -run TestPagesP95 -count=1 -v
func TestPagesP95(t *testing.T) {
	if os.Getenv("TAGLENS_P95") == "" {
		t.Skip("set TAGLENS_P95=1 to measure the pages' p95 after 10,000 jobs")
	}
	secs := 5
	if v := os.Getenv("TAGLENS_LOAD_SECONDS"); v != "" {
		var err error
		if secs, err = strconv.Atoi(v); err != nil || secs < 1 || secs > 600 {
			t.Fatalf("TAGLENS_LOAD_SECONDS=%q: want 1..600", v)
		}
	}
	const jobs, trainings, clients = 10_000, 500, 100
	const limit = 50 * time.Millisecond
	for _, keep := range []int{0, -1} {
		name := "keep 200 a kind"
		if keep < 0 {
			name = "keep all"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			seedJobHistory(t, dir, jobs, trainings)
			ts := openTestServer(t, dir, Config{KeepJobs: keep})
			var left int
			if err := ts.store.DB().QueryRow(`SELECT COUNT(*) FROM jobs`).Scan(&left); err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(ts.handler())
			defer hs.Close()
			t.Logf("%d jobs stored, %d in the history after the start", jobs, left)
			ctx := context.Background()
			paths := []string{"/", "/api/jobs", "/models"}
			if v := os.Getenv("TAGLENS_P95_PATHS"); v != "" {
				paths = strings.Split(v, ",")
			}
			for _, path := range paths {
				if _, err := loadTest(ctx, hs.URL+path, clients, time.Second, 1_000_000, nil); err != nil {
					t.Fatal(err)
				}
				res, err := loadTest(ctx, hs.URL+path, clients, time.Duration(secs)*time.Second, 10_000_000, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("GET %-9s %d clients: p50 %v, p95 %v (%.0f req/s, %d requests, %.1f kB each, %d errors)", path, clients,
					res.P50.Round(100*time.Microsecond), res.P95.Round(100*time.Microsecond), res.RPS, res.Requests,
					float64(res.Bytes)/float64(max(res.Requests, 1))/1e3, res.Errors)
				if res.Errors != 0 {
					t.Errorf("GET %s: %d errors", path, res.Errors)
				}
				if res.P95 > limit {
					t.Errorf("GET %s: p95 %v, want at most %v", path, res.P95.Round(100*time.Microsecond), limit)
				}
				if os.Getenv("TAGLENS_WRK") != "" {
					runWrk(t, hs.URL+path, secs, clients) // an independent figure, the tool
				}
			}
			t.Logf("load average after: %s", loadAverage())
		})
	}
}
