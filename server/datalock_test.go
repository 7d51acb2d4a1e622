package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taglens/taglens/server/store"
)

// TestDataFolderLock: while a store is open on a data folder, a second
// store.Open of that folder — from this process, through a separate open file
// description, as a second server would — fails at once naming the folder and
// the holder's pid, and touches nothing: the live job stays running, the
// temporary file a live save is writing stays. Closing the first store
// releases the folder.
func TestDataFolderLock(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	// A job at work and the temporary file of a model being saved.
	j := &store.JobRow{Kind: "train", TargetID: "m"}
	if err := st.InsertJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	j.State, j.StartedAt = store.JobRunning, j.CreatedAt
	if err := st.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(dir, "models", ".tmp-424242")
	if err := os.WriteFile(temp, []byte("half a model"), 0o644); err != nil {
		t.Fatal(err)
	}

	for range 2 { // a refusal leaves the lock with its holder
		st2, err := store.Open(ctx, dir)
		if err == nil {
			st2.Close()
			t.Fatal("a second store opened a data folder in use")
		}
		var le *store.DataLockedError
		if !errors.As(err, &le) || le.PID != os.Getpid() || le.Dir != dir {
			t.Fatalf("second open: %v (%#v), want a DataLockedError naming %s and pid %d", err, le, dir, os.Getpid())
		}
		for _, want := range []string{dir, fmt.Sprintf("pid %d", os.Getpid())} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, store.LockFile))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q (%v), want this process's pid %d", b, err, os.Getpid())
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("the refused open removed a live temporary file: %v", err)
	}
	if got, err := st.Job(ctx, j.ID); err != nil || got.State != store.JobRunning {
		t.Errorf("job after the refused open: %v %v, want running", got, err)
	}
	// A server on the first store works on.
	s, err := New(Config{}, Deps{Store: st}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown(ctx)

	st.Close()
	st, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatalf("after the first store closed: %v", err)
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("the next open did not remove the leftover temporary file: %v", err)
	}
}
