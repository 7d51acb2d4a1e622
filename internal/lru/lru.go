// Package lru is a small generic least-recently-used cache: the web app's
// loaded models and computed maps are kept in one each.
package lru

import "container/list"

// Cache holds at most Max values by key. Get and Add make a key the most
// recently used; Add beyond Max removes the least recently used. A Cache is not
// safe for concurrent use: its owner holds a lock around it.
type Cache[K comparable, V any] struct {
	max   int
	order *list.List // of *entry[K, V], the most recently used first
	byKey map[K]*list.Element
	// OnRemove, when not nil, is called with every value that leaves the
	// cache: evicted, removed or replaced by Add.
	OnRemove func(K, V)
}

type entry[K comparable, V any] struct {
	key K
	val V
}

// New returns an empty cache of at most max values (max ≥ 1).
func New[K comparable, V any](max int) *Cache[K, V] {
	if max < 1 {
		panic("lru: a cache holds at least one value")
	}
	return &Cache[K, V]{max: max, order: list.New(), byKey: map[K]*list.Element{}}
}

// Get returns the value of k and makes k the most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	el, ok := c.byKey[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[K, V]).val, true
}

// Peek returns the value of k without making it more recently used.
func (c *Cache[K, V]) Peek(k K) (V, bool) {
	el, ok := c.byKey[k]
	if !ok {
		var zero V
		return zero, false
	}
	return el.Value.(*entry[K, V]).val, true
}

// Add stores v as k, the most recently used (replacing k's value if it has
// one), then removes the least recently used values beyond Max.
func (c *Cache[K, V]) Add(k K, v V) {
	if el, ok := c.byKey[k]; ok {
		e := el.Value.(*entry[K, V])
		old := e.val
		e.val = v
		c.order.MoveToFront(el)
		if c.OnRemove != nil {
			c.OnRemove(k, old)
		}
		return
	}
	c.byKey[k] = c.order.PushFront(&entry[K, V]{key: k, val: v})
	for c.order.Len() > c.max {
		c.removeElement(c.order.Back())
	}
}

// Remove removes k and reports whether it was cached.
func (c *Cache[K, V]) Remove(k K) bool {
	el, ok := c.byKey[k]
	if ok {
		c.removeElement(el)
	}
	return ok
}

// RemoveIf removes every value whose key match accepts.
func (c *Cache[K, V]) RemoveIf(match func(K) bool) {
	for el := c.order.Front(); el != nil; {
		next := el.Next()
		if match(el.Value.(*entry[K, V]).key) {
			c.removeElement(el)
		}
		el = next
	}
}

// Len returns the number of cached values.
func (c *Cache[K, V]) Len() int { return c.order.Len() }

// Keys returns the cached keys, the least recently used first.
func (c *Cache[K, V]) Keys() []K {
	keys := make([]K, 0, c.order.Len())
	for el := c.order.Back(); el != nil; el = el.Prev() {
		keys = append(keys, el.Value.(*entry[K, V]).key)
	}
	return keys
}

func (c *Cache[K, V]) removeElement(el *list.Element) {
	e := c.order.Remove(el).(*entry[K, V])
	delete(c.byKey, e.key)
	if c.OnRemove != nil {
		c.OnRemove(e.key, e.val)
	}
}
