package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/taglens/taglens/internal/testkit"
)

// TestStoreReadCache: the lists read from memory (Store.Jobs' first page,
// ModelList, Counts, Corpora) are read once while nothing is written, and
// follow every write at once: a statement, a transaction, a prepared
// statement in a transaction; a rolled-back transaction changes nothing.
// Under concurrent writers, a list read after a write returned holds it.
func TestStoreReadCache(t *testing.T) {
	name, counted := testkit.CountingDriver(t)
	ctx := context.Background()
	st, err := OpenDriver(ctx, t.TempDir(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	statements := func(read func()) int64 {
		before := counted.Load()
		read()
		return counted.Load() - before
	}
	jobs := func() int {
		js, err := st.Jobs(ctx, "", 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(js)
	}
	models := func() int {
		_, n, _, _, err := st.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	jobs()
	models()
	if n := statements(func() { jobs(); models() }); n != 0 {
		t.Errorf("lists read again with nothing written: %d statements, want 0", n)
	}

	// A statement, then a transaction storing a job and its model.
	if err := st.InsertJob(ctx, &JobRow{Kind: "map"}); err != nil {
		t.Fatal(err)
	}
	if got := jobs(); got != 1 {
		t.Fatalf("after a job was stored: %d jobs listed, want 1", got)
	}
	j := &JobRow{Kind: "train"}
	m := &ModelRow{CorpusID: "c", Name: "m"}
	if err := st.InsertJobWith(ctx, j, func(tx *Tx) error { m.JobID = j.ID; return tx.InsertModel(ctx, m) }); err != nil {
		t.Fatal(err)
	}
	if gj, gm := jobs(), models(); gj != 2 || gm != 1 {
		t.Fatalf("after a transaction: %d jobs and %d models listed, want 2 and 1", gj, gm)
	}
	rows, err := st.ModelList(ctx, 50, 0)
	if err != nil || len(rows) != 1 || rows[0].JobState != JobQueued {
		t.Fatalf("model list: %v %v, want one model whose job is queued", rows, err)
	}
	j.State = JobDone
	if err := st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	if rows, _ := st.ModelList(ctx, 50, 0); rows[0].JobState != JobDone {
		t.Errorf("model list after its job ended: job %s, want done", rows[0].JobState)
	}
	// A rolled-back transaction: nothing changes.
	boom := fmt.Errorf("boom")
	if err := st.InsertJobWith(ctx, &JobRow{Kind: "map"}, func(*Tx) error { return boom }); err != boom {
		t.Fatalf("failed transaction: %v", err)
	}
	if got := jobs(); got != 2 {
		t.Errorf("after a rolled-back transaction: %d jobs, want 2", got)
	}

	// Writers and readers at once: whatever a reader gets holds every job
	// whose insert returned before the read began.
	var done sync.WaitGroup
	var mu sync.Mutex
	written := 2
	for w := range 4 {
		done.Go(func() {
			for i := range 25 {
				if err := st.InsertJob(ctx, &JobRow{Kind: fmt.Sprint("w", w), TargetID: fmt.Sprint(i)}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				written++
				mu.Unlock()
			}
		})
	}
	stop := time.Now().Add(5 * time.Second)
	for r := range 4 {
		done.Go(func() {
			for time.Now().Before(stop) {
				mu.Lock()
				least := written
				mu.Unlock()
				js, err := st.Jobs(ctx, "", 1000, 0)
				if err != nil {
					t.Error(err)
					return
				}
				if len(js) < least {
					t.Errorf("reader %d: %d jobs listed after %d were stored", r, len(js), least)
					return
				}
				if least == 102 {
					return
				}
			}
		})
	}
	done.Wait()
	if got := len(must(st.Jobs(ctx, "", 1000, 0))); got != 102 {
		t.Errorf("at the end: %d jobs, want 102", got)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
