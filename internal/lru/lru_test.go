package lru

import (
	"slices"
	"testing"
)

// TestEvictsLeastRecentlyUsed: beyond Max the least recently used value goes,
// where Get and Add count as uses and Peek does not.
func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := New[string, int](2)
	c.Add("a", 1)
	c.Add("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("Get(a) = %d, %v", v, ok)
	}
	c.Add("c", 3) // evicts b: a was used after it
	if _, ok := c.Peek("b"); ok {
		t.Error("b still cached: the cache evicted in insertion order")
	}
	if got := c.Keys(); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("keys %q, want [a c] (least recently used first)", got)
	}
	if _, ok := c.Peek("a"); !ok {
		t.Fatal("a evicted although it was used after b")
	}
	c.Add("d", 4) // Peek did not refresh a: a goes
	if got := c.Keys(); !slices.Equal(got, []string{"c", "d"}) {
		t.Errorf("keys %q, want [c d]", got)
	}
	if c.Len() != 2 {
		t.Errorf("Len %d, want 2", c.Len())
	}
}

// TestOnRemove: every value that leaves the cache is reported once, evicted,
// removed, removed by RemoveIf or replaced.
func TestOnRemove(t *testing.T) {
	c := New[string, int](2)
	var gone []int
	c.OnRemove = func(_ string, v int) { gone = append(gone, v) }
	c.Add("a", 1)
	c.Add("a", 10) // replaces 1
	c.Add("b", 2)
	c.Add("c", 3) // evicts a (10)
	if !c.Remove("b") || c.Remove("b") {
		t.Error("Remove(b) did not report b cached once")
	}
	c.Add("d", 4)
	c.RemoveIf(func(k string) bool { return k == "c" })
	if want := []int{1, 10, 2, 3}; !slices.Equal(gone, want) {
		t.Errorf("removed %v, want %v", gone, want)
	}
	if v, ok := c.Get("d"); !ok || v != 4 || c.Len() != 1 {
		t.Errorf("after removals: d = %d, %v; %d cached", v, ok, c.Len())
	}
}

func TestNewRefusesZero(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(0) did not panic")
		}
	}()
	New[int, int](0)
}
