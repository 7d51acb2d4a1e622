package jobs

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taglens/taglens/server/store"
)

func newJobsForTest(t *testing.T, slots int) (*Runner, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m := New(context.Background(), st, slots, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m, st
}

// TestJobSlots: with 2 slots, 5 blocking jobs never run more than 2 at a time and
// the others wait as queued.
func TestJobSlots(t *testing.T) {
	m, _ := newJobsForTest(t, 2)
	var running, peak atomic.Int32
	release := make(chan struct{})
	var ids []string
	for i := 0; i < 5; i++ {
		j, err := m.Submit("test", "x", nil, func(ctx context.Context, rep *Reporter) error {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-release
			running.Add(-1)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	time.Sleep(100 * time.Millisecond)
	queued := 0
	for _, id := range ids {
		j, _, _ := m.Get(context.Background(), id)
		if j.State == store.JobQueued {
			queued++
		}
	}
	if queued != 3 {
		t.Errorf("queued jobs: got %d, want 3", queued)
	}
	close(release)
	for _, id := range ids {
		if j, _ := m.Wait(context.Background(), id); j.State != store.JobDone {
			t.Errorf("job %s: got %s, want done", id, j.State)
		}
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("peak concurrency: got %d, want 2", p)
	}
}

// TestSlowSubscriber: a subscriber that never reads does not block the job, and
// its channel is closed by the manager when the job ends.
func TestSlowSubscriber(t *testing.T) {
	m, _ := newJobsForTest(t, 1)
	start := make(chan struct{})
	j, _ := m.Submit("test", "x", nil, func(ctx context.Context, rep *Reporter) error {
		<-start
		for i := 0; i < 1000; i++ {
			rep.Progress(float64(i)/1000, "loop", "")
		}
		return nil
	})
	ch, unsub, err := m.Subscribe(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer unsub()
	close(start)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if got, err := m.Wait(ctx, j.ID); err != nil || got.State != store.JobDone {
		t.Fatalf("job with a stalled subscriber: %v %v", got, err)
	}
	n := 0
	for range ch {
		n++
	}
	// The buffer holds 16 events; the rest were dropped, not queued.
	if n == 0 || n > 16 {
		t.Errorf("events received by the stalled subscriber: got %d, want 1..16", n)
	}
}

// TestShutdownInterrupts: shutdown cancels running and queued jobs, which end as
// interrupted in the store.
func TestShutdownInterrupts(t *testing.T) {
	m, st := newJobsForTest(t, 1)
	block := func(ctx context.Context, rep *Reporter) error { <-ctx.Done(); return ctx.Err() }
	a, _ := m.Submit("test", "a", nil, block)
	b, _ := m.Submit("test", "b", nil, block)
	time.Sleep(50 * time.Millisecond)
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a.ID, b.ID} {
		j, err := st.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != store.JobInterrupted {
			t.Errorf("job %s after shutdown: got %s, want interrupted", id, j.State)
		}
	}
	if _, err := m.Submit("test", "c", nil, block); !errors.Is(err, ErrShutdown) {
		t.Errorf("submit after shutdown: got %v, want ErrShutdown", err)
	}
}

func TestJobFailureAndPanic(t *testing.T) {
	m, _ := newJobsForTest(t, 1)
	f, _ := m.Submit("test", "x", nil, func(ctx context.Context, rep *Reporter) error { return errors.New("boom") })
	p, _ := m.Submit("test", "x", nil, func(ctx context.Context, rep *Reporter) error { panic("oops") })
	if j, _ := m.Wait(context.Background(), f.ID); j.State != store.JobFailed || j.Message != "boom" {
		t.Errorf("failing job: got %s %q, want failed boom", j.State, j.Message)
	}
	if j, _ := m.Wait(context.Background(), p.ID); j.State != store.JobFailed {
		t.Errorf("panicking job: got %s, want failed", j.State)
	}
}

// TestJobLanes: with 2 slots and two trainings running, a map and an
// evaluation start at once (their own lane) while a third and a fourth
// training wait, each saying its place in the queue and why it waits; the
// queue moves up when one of them is cancelled.
func TestJobLanes(t *testing.T) {
	m, _ := newJobsForTest(t, 2)
	release := make(chan struct{})
	block := func(ctx context.Context, rep *Reporter) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer close(release)
	var trains []string
	for i := 0; i < 4; i++ {
		j, err := m.Submit("train", "x", nil, block)
		if err != nil {
			t.Fatal(err)
		}
		trains = append(trains, j.ID)
	}
	started := make(chan string, 2)
	for _, kind := range []string{"space-map", "evaluation"} {
		if _, err := m.Submit(kind, "x", nil, func(ctx context.Context, rep *Reporter) error {
			started <- kind
			return block(ctx, rep)
		}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("a map or an evaluation did not start within 10 s while two trainings ran")
		}
	}
	msg := func(id string) string {
		t.Helper()
		j, _, err := m.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != store.JobQueued {
			t.Errorf("job %s: %s, want queued", id, j.State)
		}
		return j.Message
	}
	waitMsg := func(id string, want ...string) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			got = msg(id)
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(got, w)
			}
			if ok {
				return
			}
		}
		t.Errorf("job %s says %q, want it to say %q", id, got, want)
	}
	waitMsg(trains[2], "position 1 of 2", "2 trainings", "maps and evaluations do not wait")
	waitMsg(trains[3], "position 2 of 2")
	if _, err := m.Cancel(context.Background(), trains[2]); err != nil {
		t.Fatal(err)
	}
	waitMsg(trains[3], "position 1 of 1")

	// A map waiting for the interactive lane says so too.
	if _, err := m.Submit("map", "x", nil, block); err != nil {
		t.Fatal(err)
	}
	var queuedMap string
	for _, lj := range m.Active() {
		if lj.Row.Kind == "map" {
			queuedMap = lj.Row.ID
		}
	}
	waitMsg(queuedMap, "position 1 of 1", "maps and evaluations", "1 whole-space map", "1 evaluation")
}
