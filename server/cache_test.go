package server

import (
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
	if _, ok := c.get("a"); ok || c.c.Len() != 1 {
		t.Errorf("dropped a is still cached (%d models cached)", c.c.Len())
	}
}

// TestMapCacheAliases: a map's request aliases leave the cache with it,
// whether it is evicted, replaced or dropped with its model, and a use keeps a
// map from eviction.
func TestMapCacheAliases(t *testing.T) {
	c := newMapCache(2)
	a, b, d := &mapEntry{}, &mapEntry{}, &mapEntry{}
	c.put("m1|siamese-ce|c1|rock", a)
	c.link("req-a", "m1|siamese-ce|c1|rock")
	c.put("m2|siamese-ce|c1|jazz", b)
	c.link("req-b", "m2|siamese-ce|c1|jazz")
	if c.lookup("req-a") != a || c.lookup("req-b") != b {
		t.Fatal("aliases do not answer with their maps")
	}
	c.get("m1|siamese-ce|c1|rock") // a used after b
	c.put("m1|ce|c1|rock", d)      // evicts b
	if c.lookup("req-b") != nil || c.get("m2|siamese-ce|c1|jazz") != nil {
		t.Error("the evicted map or its alias is still cached")
	}
	if c.lookup("req-a") != a {
		t.Error("a, used after b, lost its alias")
	}
	c.put("m1|siamese-ce|c1|rock", &mapEntry{}) // replaced: the old entry's alias goes
	if c.lookup("req-a") != nil {
		t.Error("a replaced map's alias still answers")
	}
	c.link("req-d", "m1|ce|c1|rock")
	c.dropModel("m1")
	if c.lookup("req-d") != nil || c.get("m1|ce|c1|rock") != nil || c.c.Len() != 0 {
		t.Errorf("model m1's maps or aliases survived its drop (%d cached)", c.c.Len())
	}
}
