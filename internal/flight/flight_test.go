package flight

import (
	"context"
	"errors"
	"testing"
)

// TestDoJoins checks that a call with the key of a computation under way
// gets its result without running its own work, that a waiting caller whose
// context ends returns its error, and that a key is computed again once its
// computation has ended.
func TestDoJoins(t *testing.T) {
	joined := make(chan struct{}, 3)
	g := Group[int, string]{joined: func() { joined <- struct{}{} }}
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan string, 1)
	go func() {
		v, _ := g.Do(context.Background(), 1, func() (string, error) {
			close(started)
			<-release
			return "first", nil
		})
		first <- v
	}()
	<-started
	second := make(chan string, 1)
	go func() {
		v, _ := g.Do(context.Background(), 1, func() (string, error) { return "second", nil })
		second <- v
	}()
	<-joined // the second caller waits for the first computation
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Do(ctx, 1, func() (string, error) { return "third", nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiting caller whose context ended: %v, want context.Canceled", err)
	}
	close(release)
	if a, b := <-first, <-second; a != "first" || b != "first" {
		t.Errorf("the two callers got %q and %q, want the first computation's result for both", a, b)
	}
	if v, _ := g.Do(context.Background(), 1, func() (string, error) { return "again", nil }); v != "again" {
		t.Errorf("after the computation ended: %q, want a new one", v)
	}
}
