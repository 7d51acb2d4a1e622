package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/taglens/taglens/internal/lru"
	"github.com/taglens/taglens/tsne"
)

// mapEntry is a computed base map kept in memory: its JSON and the t-SNE
// embedding (for Transform) with the CE rows of its points. Everything the map
// endpoint writes is prepared once (both bodies, their lengths, the ETag), so
// answering a cached map only writes bytes.
type mapEntry struct {
	json []byte
	gz   []byte // gzip of json, made once
	etag string
	data *mapData
	emb  *tsne.Embedding
	// ctype is the Content-Type of a map that is not JSON (the instance
	// map's binary columns), nil for JSON.
	ctype []string

	// Prepared header values (one-element slices: net/http never writes into
	// them, and an Add elsewhere reallocates instead of sharing).
	etagHdr, jsonLen, gzLen []string
	aliases                 []string // request keys in mapCache.alias pointing here
}

// mapCache holds the most recently used maps by model and key
// (internal/lru). alias maps a request's own parameters (model id, variant,
// the raw corpus list, term) to the entry it was answered with, so a repeated
// request skips the store (model and corpus look-ups) entirely; an entry's
// aliases go with it.
type mapCache struct {
	mu    sync.Mutex
	c     *lru.Cache[string, *mapEntry]
	alias map[string]*mapEntry
}

func newMapCache(max int) *mapCache {
	c := &mapCache{c: lru.New[string, *mapEntry](max), alias: map[string]*mapEntry{}}
	c.c.OnRemove = func(_ string, e *mapEntry) { c.unlink(e) } // c.mu is held
	return c
}

// get returns the entry stored under k, or nil, and marks it most recently used.
func (c *mapCache) get(k string) *mapEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, _ := c.c.Get(k)
	return e
}

// lookup returns the entry a request key was linked to, or nil.
func (c *mapCache) lookup(reqKey string) *mapEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.alias[reqKey]
}

// link makes reqKey answer with the entry stored under k (if it still is).
func (c *mapCache) link(reqKey, k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, _ := c.c.Peek(k)
	if e == nil || c.alias[reqKey] == e {
		return
	}
	if len(e.aliases) >= 16 {
		return // enough spellings of one map
	}
	c.alias[reqKey] = e
	e.aliases = append(e.aliases, reqKey)
}

// put stores e under k, most recently used, evicting the least recently used
// maps beyond the cache's size.
func (c *mapCache) put(k string, e *mapEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.Add(k, e)
}

// unlink forgets the aliases of e; c.mu is held.
func (c *mapCache) unlink(e *mapEntry) {
	for _, a := range e.aliases {
		if c.alias[a] == e {
			delete(c.alias, a)
		}
	}
	e.aliases = nil
}

// dropModel forgets every map of a model (deleted).
func (c *mapCache) dropModel(id string) {
	c.dropIf(func(modelID string, _ []string) bool { return modelID == id })
}

// dropCorpus forgets every map spanning a corpus (deleted).
func (c *mapCache) dropCorpus(id string) {
	c.dropIf(func(_ string, corpora []string) bool { return slices.Contains(corpora, id) })
}

func (c *mapCache) dropIf(match func(modelID string, corpora []string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.RemoveIf(func(k string) bool {
		// Keys are model|variant|corpus,corpus|term (ids and variants hold no '|').
		f := strings.SplitN(k, "|", 4)
		return len(f) == 4 && match(f[0], strings.Split(f[2], ","))
	})
}

// mapKey identifies a base map: variant, term and the corpora it spans.
func mapKey(variant, term string, corpora []string) string {
	cs := append([]string(nil), corpora...)
	sort.Strings(cs)
	return variant + "|" + strings.Join(cs, ",") + "|" + term
}

// newMapEntry prepares a cached map for serving.
func newMapEntry(b []byte, data *mapData, emb *tsne.Embedding) *mapEntry {
	return prepareEntry(b, data, emb, gzip.BestCompression)
}

// newBinEntry prepares a cached binary map (the instance map) for serving:
// gzip at its fastest level (tens of megabytes of mostly float32 columns,
// which compress little at any level) and its Content-Type.
func newBinEntry(b []byte) *mapEntry {
	e := prepareEntry(b, nil, nil, gzip.BestSpeed)
	e.ctype = hdrBinary
	return e
}

func prepareEntry(b []byte, data *mapData, emb *tsne.Embedding, level int) *mapEntry {
	var buf bytes.Buffer
	var gz []byte // nil: served uncompressed
	zw, err := gzip.NewWriterLevel(&buf, level)
	if err == nil {
		zw.Write(b)
		err = zw.Close()
	}
	if err == nil {
		gz = buf.Bytes()
	}
	sum := sha256.Sum256(b)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	return &mapEntry{json: b, gz: gz, etag: etag, data: data, emb: emb,
		etagHdr: []string{etag}, jsonLen: []string{strconv.Itoa(len(b))}, gzLen: []string{strconv.Itoa(len(gz))}}
}
