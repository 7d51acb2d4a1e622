// Package flight runs a computation once per key at a time: a caller whose key
// is being computed waits for that computation and gets its result, instead
// of computing it a second time beside it. The web app's map computations
// (the same form or request sent twice computes once) and a comparison's LSA
// fits (LSA's baseline and the baselines that take its dimension, trained two
// at a time) use it. Nothing is kept once a computation ends.
package flight

import (
	"context"
	"sync"
)

// Group runs the computations of one kind. The zero value is ready to use.
type Group[K comparable, T any] struct {
	mu sync.Mutex
	m  map[K]*call[T]
	// joined, when set (tests), is called as a caller starts waiting for a
	// computation under way.
	joined func()
}

type call[T any] struct {
	done chan struct{} // closed when v and err are set
	v    T
	err  error
}

// Do returns work's result for key: it runs work, unless a computation of key
// is under way, whose result it then waits for; a waiting caller returns
// ctx.Err() when its ctx ends first. Every caller of one computation gets the
// same value and error.
func (g *Group[K, T]) Do(ctx context.Context, key K, work func() (T, error)) (T, error) {
	g.mu.Lock()
	if c, ok := g.m[key]; ok {
		g.mu.Unlock()
		if g.joined != nil {
			g.joined()
		}
		select {
		case <-c.done:
			return c.v, c.err
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
	if g.m == nil {
		g.m = map[K]*call[T]{}
	}
	c := &call[T]{done: make(chan struct{})}
	g.m[key] = c
	g.mu.Unlock()
	c.v, c.err = work()
	g.mu.Lock()
	delete(g.m, key)
	g.mu.Unlock()
	close(c.done)
	return c.v, c.err
}
