package corpus

import (
	"fmt"
	"strings"
)

// builder validates documents and assembles the corpus.
type builder struct {
	opt    ParseOptions
	c      *Corpus
	ids    map[string]int // document id → line
	intern map[string]string
	cur    []string // tags of the document being built
	seen   map[string]struct{}
	line   int
	err    *ParseError
}

func newBuilder(opt ParseOptions, f Format) *builder {
	return &builder{
		opt:    opt,
		c:      &Corpus{Name: opt.Name, Format: f},
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
	clear(b.seen)
}

// tag adds a raw tag to the current document; the first error sticks until end.
func (b *builder) tag(t []byte) {
	t = trimBytes(t)
	if len(t) == 0 || b.err != nil {
		return
	}
	s, ok := b.intern[string(t)]
	if !ok {
		s = string(t)
		b.intern[s] = s
	}
	b.add(s)
}

// tagString is tag for strings.
func (b *builder) tagString(t string) {
	t = trimString(t)
	if t == "" || b.err != nil {
		return
	}
	s, ok := b.intern[t]
	if !ok {
		if strings.IndexByte(t, 0) >= 0 {
			b.err = lineErr(b.line, "tag %q contains a NUL character", t)
			return
		}
		s = strings.Clone(t)
		b.intern[s] = s
	}
	b.add(s)
}

func (b *builder) add(s string) {
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
		b.err = lineErr(b.line, "document has more than %d tags", b.opt.MaxTagsPerDoc)
		return
	}
	b.cur = append(b.cur, s)
}

// end finishes the current document with the given id.
func (b *builder) end(id string) error {
	if b.err != nil {
		return b.err
	}
	id = trimString(id)
	if id == "" {
		return lineErr(b.line, "empty document id")
	}
	if strings.IndexByte(id, 0) >= 0 {
		return lineErr(b.line, "document id %q contains a NUL character", id)
	}
	if first, dup := b.ids[id]; dup {
		return lineErr(b.line, "duplicate document id %q (first on line %d)", id, first)
	}
	id = strings.Clone(id)
	b.ids[id] = b.line
	if len(b.cur) == 0 {
		b.c.Dropped++
		if len(b.c.Warnings) < MaxWarnings {
			b.c.Warnings = append(b.c.Warnings, ParseError{Line: b.line, Offset: -1,
				Reason: fmt.Sprintf("document %q has no tags (dropped)", id)})
		}
		return nil
	}
	if len(b.c.Docs) >= b.opt.MaxDocs {
		return lineErr(b.line, "more than %d documents", b.opt.MaxDocs)
	}
	b.c.Docs = append(b.c.Docs, Document{ID: id, Tags: append([]string(nil), b.cur...)})
	return nil
}

func (b *builder) finish() (*Corpus, error) {
	switch n := len(b.c.Docs); {
	case n == 0 && b.c.Dropped > 0:
		return nil, lineErr(0, "empty corpus: none of its %d documents has a tag", b.c.Dropped)
	case n == 0:
		return nil, lineErr(0, "empty corpus: no documents")
	case n == 1:
		return nil, lineErr(0, "corpus has only 1 document; at least 2 are needed")
	}
	return b.c, nil
}
