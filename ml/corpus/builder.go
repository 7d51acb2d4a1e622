package corpus

import (
	"fmt"
	"strings"
)

// builder validates documents and assembles the corpus. It holds what the
// corpus needs and little else: each distinct tag once (intern), the tags of
// all documents in shared chunks of string headers (slab, no allocation per
// document), the document ids, and the current document's tags, which the tag
// cap bounds.
type builder struct {
	opt    ParseOptions
	c      *Corpus
	ids    map[string]int // document id → line
	intern map[string]string
	cur    []string // tags of the document being built
	seen   map[string]struct{}
	over   bool // the current document passed MaxTagsPerDoc: it will be skipped
	bidi   bool // a tag of the current document holds a bidirectional formatting character: it will be skipped
	slab   []string
	docs   [][]Document // the kept documents, in chunks of docChunk
	ndocs  int
	read   int   // documents read: kept, dropped and skipped
	uses   int   // tags of the kept documents
	mem    int64 // estimated bytes held (see the cost constants)
	line   int
	err    *ParseError
	input  *sizeLimit // the input's byte count, for opt.Progress
	sink   DocSink    // takes the kept documents instead of docs (ParseTo)
	// lineIDs says the ids are the documents' line numbers (the lines
	// format): unique by construction, so not kept for the duplicate check.
	lineIDs bool
}

// The memory a parse holds, as ParseOptions.MaxMemory counts it (checked
// against the heap by TestMemoryEstimate): each document read costs its id's
// bytes and costID (the id's string and its entry in the duplicate check,
// freed when Parse returns), each distinct tag its bytes and costTag (its
// string and its entry in the intern table), and the kept documents the
// chunks they are stored in, counted whole when allocated: costDoc bytes per
// Document, costUse per tag use (a string header).
const (
	costID  = 48
	costDoc = 40
	costUse = 16
	costTag = 64
)

// slabChunk is the number of tag references (16 bytes each) allocated at once
// for the documents' tag lists.
const slabChunk = 8192

// docChunk is the number of documents allocated at once while parsing.
const docChunk = 16384

func newBuilder(opt ParseOptions, f Format) *builder {
	return &builder{
		opt:    opt,
		c:      &Corpus{Name: opt.Name, Format: f, TagCap: opt.MaxTagsPerDoc},
		ids:    make(map[string]int),
		intern: make(map[string]string),
		seen:   make(map[string]struct{}),
	}
}

// begin starts the document on the given line.
func (b *builder) begin(line int) {
	b.line = line
	b.cur = b.cur[:0]
	b.err = nil
	b.over = false
	b.bidi = false
	clear(b.seen)
}

// tag adds a raw tag to the current document; the first error sticks until end.
func (b *builder) tag(t []byte) {
	if b.err != nil || b.over || b.bidi {
		return
	}
	t = trimBytes(t)
	if len(t) == 0 {
		return
	}
	s, ok := b.intern[string(t)]
	if !ok {
		s = string(t)
	}
	b.add(s, !ok)
}

// tagString is tag for strings.
func (b *builder) tagString(t string) {
	if b.err != nil || b.over || b.bidi {
		return
	}
	t = trimString(t)
	if t == "" {
		return
	}
	s, ok := b.intern[t]
	if !ok {
		if strings.IndexByte(t, 0) >= 0 {
			b.err = lineErr(b.line, "tag %q contains a NUL character", t)
			return
		}
		s = strings.Clone(t)
	}
	b.add(s, !ok)
}

// add adds tag s to the current document; fresh says s is not interned yet.
// A new tag is interned only once it is known to be valid.
func (b *builder) add(s string, fresh bool) {
	if len(b.cur) < 16 {
		for _, t := range b.cur {
			if t == s {
				return
			}
		}
	} else {
		if len(b.seen) == 0 {
			for _, t := range b.cur {
				b.seen[t] = struct{}{}
			}
		}
		if _, dup := b.seen[s]; dup {
			return
		}
		b.seen[s] = struct{}{}
	}
	if len(s) > b.opt.MaxTagBytes {
		b.err = lineErr(b.line, "tag of %d bytes (limit %d): %q", len(s), b.opt.MaxTagBytes, s)
		return
	}
	if len(b.cur) >= b.opt.MaxTagsPerDoc {
		// Over the cap: the document will be skipped, so its tags are let go
		// now and the rest of its line is read without keeping anything.
		b.over = true
		b.cur = b.cur[:0]
		clear(b.seen)
		return
	}
	if fresh {
		if r, kind := badRune(s); kind == kindBidi {
			// A tag that could reorder the text shown after it: the
			// document is skipped (Corpus.BidiSkipped), as one over the
			// tag cap is, and nothing of it is kept.
			b.bidi = true
			b.cur = b.cur[:0]
			clear(b.seen)
			return
		} else if kind != "" {
			b.err = lineErr(b.line, "tag %q holds the %s character U+%04X: tags may not hold control or bidirectional formatting characters", s, kind, r)
			return
		}
		b.intern[s] = s
		b.mem += costTag + int64(len(s))
	}
	b.cur = append(b.cur, s)
}

// badRune returns the first character of tag s that a tag may not hold and
// what it is ("control" or "bidirectional formatting"), or kind "": control
// characters (C0, DEL, C1: a TAB, LF or CR inside a tag breaks the line formats
// and the pages, a BEL is invisible) and the bidirectional embedding, override
// and isolate characters U+202A–U+202E and U+2066–U+2069 (kindBidi), which
// reorder the text shown after them.
func badRune(s string) (r rune, kind string) {
	for _, r := range s {
		switch {
		case r < 0x20 || r >= 0x7f && r < 0xa0:
			return r, "control"
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return r, kindBidi
		}
	}
	return 0, ""
}

// kindBidi is badRune's kind of the bidirectional formatting characters.
const kindBidi = "bidirectional formatting"

// end finishes the current document with the given id.
func (b *builder) end(id string) error { return b.endID(id, false) }

// endOwned is end for an id string that nothing else holds (made for this
// document alone, not a piece of a line), which the corpus may keep as it is.
func (b *builder) endOwned(id string) error { return b.endID(id, true) }

func (b *builder) endID(id string, owned bool) error {
	if b.err != nil {
		return b.err
	}
	raw := id
	id = trimString(id)
	if id == "" {
		return lineErr(b.line, "empty document id")
	}
	if strings.IndexByte(id, 0) >= 0 {
		return lineErr(b.line, "document id %q contains a NUL character", id)
	}
	if _, kind := badRune(id); kind == kindBidi {
		b.bidi = true // its id would reorder the text around it too
	}
	if first, dup := b.ids[id]; dup {
		return lineErr(b.line, "duplicate document id %q (first on line %d)", id, first)
	}
	if b.read++; b.read > b.opt.MaxDocs {
		return tooLarge(b.line, "more than %d documents (the limit of one corpus)", b.opt.MaxDocs)
	}
	if b.opt.Progress != nil && b.read%ProgressEvery == 0 {
		b.progress()
	}
	n := len(b.cur)
	keep := !b.over && !b.bidi && n > 0
	if !b.lineIDs || keep {
		b.mem += costID + int64(len(id))
	}
	newSlab := keep && b.sink == nil && cap(b.slab)-len(b.slab) < n
	newDocs := keep && b.sink == nil && b.ndocs%docChunk == 0
	if newDocs {
		b.mem += costDoc * docChunk
	}
	if newSlab {
		b.mem += costUse * int64(max(slabChunk, n))
	}
	held := b.mem
	if b.sink != nil {
		held += b.sink.Bytes()
	}
	if held > b.opt.MaxMemory {
		return tooLarge(b.line, "the corpus would need more than %s of memory (the limit of one parse): %d documents, %d tag uses and %d distinct tags so far",
			byteSize(b.opt.MaxMemory), b.read, b.uses+len(b.cur), len(b.intern))
	}
	if !owned || len(id) != len(raw) {
		id = strings.Clone(id)
	}
	if !b.lineIDs {
		b.ids[id] = b.line
	}
	switch {
	case b.over:
		b.c.Skipped = append(b.c.Skipped, SkippedDoc{Line: b.line, ID: id})
		return nil
	case b.bidi:
		b.c.BidiSkipped = append(b.c.BidiSkipped, SkippedDoc{Line: b.line, ID: id})
		return nil
	case len(b.cur) == 0:
		b.c.Dropped++
		if len(b.c.Warnings) < MaxWarnings {
			b.c.Warnings = append(b.c.Warnings, ParseError{Line: b.line, Offset: -1,
				Reason: fmt.Sprintf("document %q has no tags (dropped)", id)})
		}
		return nil
	}
	b.uses += n
	if b.sink != nil {
		b.ndocs++
		return b.sink.Add(Document{ID: id, Tags: b.cur})
	}
	if newSlab {
		b.slab = make([]string, 0, max(slabChunk, n))
	}
	at := len(b.slab)
	b.slab = append(b.slab, b.cur...)
	if newDocs {
		b.docs = append(b.docs, make([]Document, 0, docChunk))
	}
	last := &b.docs[len(b.docs)-1]
	*last = append(*last, Document{ID: id, Tags: b.slab[at : at+n : at+n]})
	b.ndocs++
	return nil
}

// tooLarge is the *ParseError, wrapping ErrTooLarge, of a corpus over a limit
// that bounds its memory.
func tooLarge(line int, format string, args ...any) *ParseError {
	e := lineErr(line, format, args...)
	e.Err = ErrTooLarge
	return e
}

// progress reports how far the parse is to opt.Progress.
func (b *builder) progress() {
	p := Progress{Docs: b.read}
	if b.input != nil {
		p.Bytes = min(b.input.n, b.input.max)
	}
	b.opt.Progress(p)
}

func (b *builder) finish() (*Corpus, error) {
	if b.opt.Progress != nil {
		b.progress()
	}
	// The documents are gathered into one slice only now, once the tables
	// of the parse are let go: growing one slice by appending would leave
	// its old copies for the collector while the parse still holds the rest.
	b.ids, b.intern, b.seen = nil, nil, nil
	if b.ndocs > 0 && b.sink == nil {
		b.c.Docs = make([]Document, 0, b.ndocs)
		for i, chunk := range b.docs {
			b.c.Docs = append(b.c.Docs, chunk...)
			b.docs[i] = nil
		}
		b.docs = nil
	}
	switch n := b.ndocs; {
	case n == 0 && len(b.c.Skipped)+len(b.c.BidiSkipped) > 0:
		return nil, lineErr(0, "empty corpus: no document kept (%d without tags dropped%s)", b.c.Dropped, b.skippedNote())
	case n == 0 && b.c.Dropped > 0:
		return nil, lineErr(0, "empty corpus: none of its %d documents has a tag", b.c.Dropped)
	case n == 0:
		return nil, lineErr(0, "empty corpus: no documents")
	case n == 1:
		return nil, lineErr(0, "corpus has only 1 document; at least 2 are needed%s", b.skippedNote())
	}
	return b.c, nil
}

// skippedNote explains, for an error about too few documents, the documents
// skipped for having too many tags or a bidirectional formatting character.
func (b *builder) skippedNote() string {
	note := ""
	if len(b.c.Skipped) > 0 {
		note += "; " + b.c.SkippedSummary(3)
	}
	if len(b.c.BidiSkipped) > 0 {
		note += "; " + b.c.BidiSummary(3)
	}
	return note
}
