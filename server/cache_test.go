package server

import (
	"slices"
	"testing"

	"github.com/taglens/taglens/ml/ce"
)

// TestModelCacheLRU checks that the cache evicts the least recently used
// model, not the first loaded: a hit refreshes a model.
func TestModelCacheLRU(t *testing.T) {
	c := newModelCache(2)
	a, b, d := &ce.Model{}, &ce.Model{}, &ce.Model{}
	c.put("a", a)
	c.put("b", b)
	if m, ok := c.get("a"); !ok || m != a {
		t.Fatal("a not cached")
	}
	c.put("d", d) // evicts b, the least recently used
	if _, ok := c.get("b"); ok {
		t.Error("b still cached: the cache evicted in insertion order")
	}
	if _, ok := c.get("a"); !ok {
		t.Error("a evicted although it was used after b")
	}
	if _, ok := c.get("d"); !ok {
		t.Error("d not cached")
	}
	c.drop("a")
	if _, ok := c.get("a"); ok || slices.Contains(c.order, "a") {
		t.Errorf("dropped a is still cached (order %v)", c.order)
	}
}
