package corpus

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The accepted corpus formats. See the package documentation (doc.go) for the
// exact syntax of each one.
const (
	FormatTSV         Format = "tsv"    // id<TAB>tag<TAB>tag… (the format of ../shared/data)
	FormatCommaLines  Format = "lines"  // one document per line, comma-separated tags; id = line number
	FormatCSV         Format = "csv"    // CSV with a header, an id column and a tags column
	FormatJSONL       Format = "jsonl"  // JSON Lines {"id": …, "tags": […]}
	FormatLabelMatrix Format = "matrix" // CSV binary label matrix: header of tag names, 0/1 cells
	FormatARFF        Format = "arff"   // Weka/mulan ARFF, dense or sparse, {0,1} label attributes
)

// Formats lists every accepted format, in the order Detect considers them.
var Formats = []Format{FormatARFF, FormatJSONL, FormatTSV, FormatLabelMatrix, FormatCSV, FormatCommaLines}

// ParseFormat returns the format named s. The empty string means "detect" and is
// returned as is; "tab" is accepted for tsv, "json" for jsonl, "mulan" for arff.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "", FormatTSV, FormatCommaLines, FormatCSV, FormatJSONL, FormatLabelMatrix, FormatARFF:
		return f, nil
	case "tab":
		return FormatTSV, nil
	case "json":
		return FormatJSONL, nil
	case "mulan":
		return FormatARFF, nil
	}
	return "", fmt.Errorf("corpus: unknown format %q (want one of tsv, lines, csv, jsonl, matrix, arff)", s)
}

// Limits applied when the corresponding ParseOptions field is zero.
const (
	DefaultMaxLineBytes  = 4 << 20    // bytes in one physical line
	DefaultMaxTagsPerDoc = 10_000     // distinct tags in one document
	DefaultMaxTagBytes   = 256        // bytes of one tag (after trimming)
	DefaultMaxDocs       = 10_000_000 // documents in one corpus
	DefaultMaxBytes      = 1 << 30    // bytes of input, after decompression
	// MaxWarnings caps Corpus.Warnings; Corpus.Dropped still counts every dropped document.
	MaxWarnings = 100
	// detectBytes is how much of the input Parse looks at to detect its format.
	detectBytes = 64 << 10
)

// ParseOptions control Parse and ReadFile. The zero value detects the format and
// applies the default limits.
type ParseOptions struct {
	// Format of the input; "" detects it from the first 64 KiB (see Detect).
	Format Format
	// Name of the corpus; ReadFile defaults it from the file name.
	Name string
	// MaxLineBytes bounds the length of one physical line (default DefaultMaxLineBytes).
	MaxLineBytes int
	// MaxTagsPerDoc bounds the number of distinct tags of one document (default DefaultMaxTagsPerDoc).
	MaxTagsPerDoc int
	// MaxDocs bounds the number of documents (default DefaultMaxDocs).
	MaxDocs int
	// MaxBytes bounds the size of the input in bytes, after decompression
	// (default DefaultMaxBytes): a few kilobytes of gzip can expand to gigabytes.
	MaxBytes int64
	// MaxTagBytes bounds the length of one tag in bytes (default DefaultMaxTagBytes):
	// a tag is a label, and one huge "tag" would be copied into every statistic,
	// page and model that lists the vocabulary.
	MaxTagBytes int
	// TagSep separates tags inside the tags field of FormatCSV. "" picks, per field,
	// the first of ";", "|" and "," that occurs in it.
	TagSep string
	// Labels names the label attributes of an ARFF file explicitly (as mulan's XML
	// file does). Empty: the "-C n" option of a MEKA relation name when present, else
	// every nominal attribute whose values are exactly {0,1}.
	Labels []string
}

func (o *ParseOptions) defaults() {
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxTagsPerDoc <= 0 {
		o.MaxTagsPerDoc = DefaultMaxTagsPerDoc
	}
	if o.MaxDocs <= 0 {
		o.MaxDocs = DefaultMaxDocs
	}
	if o.MaxTagBytes <= 0 {
		o.MaxTagBytes = DefaultMaxTagBytes
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
}

// A ParseError reports malformed input. Line is the 1-based physical line of the
// input where the problem is (0 when it concerns the whole input); Offset is the
// 0-based byte offset when known, else -1. Err, when set, is a sentinel the error
// wraps (ErrTooLarge).
type ParseError struct {
	Line   int
	Offset int64
	Reason string
	Err    error
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }

// ErrTooLarge is wrapped by the *ParseError of an input over ParseOptions.MaxBytes.
var ErrTooLarge = errors.New("corpus too large")

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return "line " + strconv.Itoa(e.Line) + ": " + e.Reason
	}
	return e.Reason
}

// ExcerptBytes is the most of an offending input an error message quotes.
const ExcerptBytes = 80

// Excerpt quotes s for an error message: at most ExcerptBytes bytes of it, and
// at most about ExcerptBytes characters once quoted (invalid bytes quote as
// four characters each), cut at a character boundary, with "…" and the full
// length when it was cut.
func Excerpt(s string) string {
	if q := strconv.Quote(s); len(q) <= ExcerptBytes+2 {
		return q
	}
	for cut := ExcerptBytes; ; cut = cut * 3 / 4 {
		p := prefix(s, cut)
		if q := strconv.Quote(p); len(q) <= ExcerptBytes+2 || p == "" {
			return fmt.Sprintf("%s… (%d bytes)", q, len(s))
		}
	}
}

// prefix returns the longest prefix of s of at most n bytes that ends at a
// character boundary.
func prefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// lineErr formats a ParseError of a line. String arguments are pieces of the
// input: each is cut to ExcerptBytes bytes (with "…"), so that a message about a
// 3 MB line stays one line long.
func lineErr(line int, format string, args ...any) *ParseError {
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > ExcerptBytes {
			args[i] = prefix(s, ExcerptBytes) + "…"
		}
	}
	return &ParseError{Line: line, Offset: -1, Reason: fmt.Sprintf(format, args...)}
}

// ErrNotRepresentable is wrapped by Write when a corpus cannot be written in the
// requested format without loss (e.g. a tag containing a tab in FormatTSV).
var ErrNotRepresentable = errors.New("not representable in this format")

// ReadFile parses the corpus in the named file, which may be gzip-compressed
// (see Parse). When opt.Name is empty the corpus is named after the file without
// its extension (and without ".gz"), or after its folder when the file is called
// docs.* (the layout of ../shared/data).
func ReadFile(path string, opt ParseOptions) (*Corpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	if opt.Name == "" {
		base := filepath.Base(path)
		if strings.HasSuffix(strings.ToLower(base), ".gz") {
			base = base[:len(base)-3]
		}
		opt.Name = strings.TrimSuffix(base, filepath.Ext(base))
		if opt.Name == "docs" {
			if d := filepath.Base(filepath.Dir(path)); d != "." && d != string(filepath.Separator) {
				opt.Name = d
			}
		}
	}
	c, err := Parse(f, opt)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", path, err)
	}
	return c, nil
}

// Parse reads a corpus from r in opt.Format, or in the detected format when it is
// empty; Corpus.Detected then says which rule chose it. It streams: memory grows
// with the corpus, not with the input's size.
//
// Input that starts with the gzip magic bytes (1f 8b) is decompressed first,
// whatever the format; a damaged gzip stream is a *ParseError starting "gzip:".
// Other compressions (zip, bzip2, xz, zstd) are recognised and refused by name.
// More than opt.MaxBytes bytes of (decompressed) input is a *ParseError wrapping
// ErrTooLarge.
//
// Validation: input that is not UTF-8 or holds a NUL byte, over-long lines, a
// document with too many tags, a duplicate document id, an empty id, or a syntax
// error of the format are errors (a *ParseError naming the line); so are an empty
// corpus and a corpus of fewer than 2 documents. Tags are trimmed of white space,
// empty tags ignored and repeated tags kept once (first occurrence's position).
// Documents left without tags are dropped; Corpus.Dropped counts them and
// Corpus.Warnings names the first MaxWarnings of them.
func Parse(r io.Reader, opt ParseOptions) (*Corpus, error) {
	opt.defaults()
	f, err := ParseFormat(string(opt.Format))
	if err != nil {
		return nil, err
	}
	in, gz, err := decompress(r)
	if err != nil {
		return nil, err
	}
	in = &sizeLimit{r: in, max: opt.MaxBytes, gz: gz}
	g := &guard{r: in, maxLine: opt.MaxLineBytes, line: 1, buf: make([]byte, 64<<10)}
	br := bufio.NewReaderSize(g, detectBytes+1024)
	if p, _ := br.Peek(3); bytes.Equal(p, bom) {
		br.Discard(3)
	}
	detected := ""
	if f == "" {
		prefix, err := br.Peek(detectBytes)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, err
		}
		if len(prefix) == 0 {
			return nil, lineErr(0, "empty corpus: no documents")
		}
		f, detected, err = detect(prefix, err == io.EOF)
		if err != nil {
			return nil, err
		}
		if gz {
			detected += " (gzip-compressed)"
		}
	}
	b := newBuilder(opt, f)
	b.c.Detected = detected
	switch f {
	case FormatTSV:
		err = parseTSV(br, b)
	case FormatCommaLines:
		err = parseCommaLines(br, b)
	case FormatJSONL:
		err = parseJSONL(br, b)
	case FormatCSV:
		err = parseCSV(br, b)
	case FormatLabelMatrix:
		err = parseMatrix(br, b)
	case FormatARFF:
		err = parseARFF(br, b)
	}
	if err != nil {
		return nil, err
	}
	return b.finish()
}

// Magic numbers of compressed files.
var (
	gzipMagic  = []byte{0x1f, 0x8b}
	otherMagic = []struct {
		name  string
		magic []byte
	}{
		{"zip", []byte("PK\x03\x04")},
		{"bzip2", []byte("BZh")},
		{"xz", []byte("\xfd7zXZ\x00")},
		{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}},
	}
)

// decompress returns the reader of r's content: r itself, or its gzip
// decompression (gz true) when r starts with the gzip magic bytes.
func decompress(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(6)
	if err != nil && err != io.EOF && len(head) == 0 {
		return nil, false, err
	}
	if bytes.HasPrefix(head, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, false, gzipErr(err, 0)
		}
		return &gunzip{zr: zr}, true, nil
	}
	for _, m := range otherMagic {
		if bytes.HasPrefix(head, m.magic) {
			return nil, false, lineErr(0, "the input is %s-compressed; only gzip is read: decompress it first or recompress it with gzip", m.name)
		}
	}
	return br, false, nil
}

// gunzip reads a gzip stream (of one or more members), turning its errors into
// *ParseError values that say what is wrong with the stream.
type gunzip struct {
	zr  *gzip.Reader
	out int64 // decompressed bytes returned so far
}

func (g *gunzip) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	g.out += int64(n)
	if err != nil && err != io.EOF {
		err = gzipErr(err, g.out)
	}
	return n, err
}

// gzipErr describes an error of compress/gzip; out is the number of bytes
// decompressed before it.
func gzipErr(err error, out int64) *ParseError {
	var why string
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		why = "the stream is truncated (the file ends before the gzip trailer)"
	case errors.Is(err, gzip.ErrChecksum):
		why = "checksum mismatch: the compressed data is damaged"
	case errors.Is(err, gzip.ErrHeader) && out > 0:
		why = "data after the end of the compressed stream is not gzip"
	case errors.Is(err, gzip.ErrHeader):
		why = "invalid header"
	case errors.As(err, &corrupt):
		why = fmt.Sprintf("corrupt compressed data at compressed byte %d", int64(corrupt))
	default:
		why = err.Error()
	}
	if out > 0 {
		why += fmt.Sprintf(" (after %d decompressed bytes)", out)
	}
	return &ParseError{Offset: -1, Reason: "gzip: " + why, Err: err}
}

// sizeLimit fails with ErrTooLarge when r yields more than max bytes.
type sizeLimit struct {
	r   io.Reader
	max int64
	n   int64
	gz  bool
}

func (l *sizeLimit) Read(p []byte) (int, error) {
	if l.n > l.max {
		return 0, l.tooLarge()
	}
	if rest := l.max - l.n + 1; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.max {
		// The bytes up to the limit are good; the caller gets them first and
		// the error on its next read.
		n -= int(l.n - l.max)
		l.n = l.max + 1
		return n, nil
	}
	return n, err
}

func (l *sizeLimit) tooLarge() *ParseError {
	what := "the corpus is"
	if l.gz {
		what = "gzip: the decompressed corpus is"
	}
	return &ParseError{Offset: -1, Err: ErrTooLarge,
		Reason: fmt.Sprintf("%s larger than the limit of %s (%d bytes)", what, byteSize(l.max), l.max)}
}

// byteSize formats n bytes as "1 GiB", "64 KiB", "1.5 MiB" or "300 bytes".
func byteSize(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.4g %s", f, units[u])
}

var bom = []byte("\ufeff")

// guard is the reader every parser reads through. It rejects NUL bytes, invalid
// UTF-8 and lines longer than maxLine, reporting line and byte offset, so the
// parsers need not check them.
type guard struct {
	r       io.Reader
	maxLine int
	buf     []byte
	pending []byte // validated bytes not yet returned
	carryAt int    // buf[carryAt:carryAt+ncarry] is an incomplete rune kept back
	ncarry  int
	off     int64 // input offset of the next chunk
	line    int   // line number at the start of the next chunk
	lineLen int   // length of the current line before the next chunk
	err     error
}

func (g *guard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.fill()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

func (g *guard) fill() {
	// pending is drained, so buf may be reused; the incomplete rune kept back by
	// the previous fill moves to the front.
	copy(g.buf, g.buf[g.carryAt:g.carryAt+g.ncarry])
	n, err := io.ReadAtLeast(g.r, g.buf[g.ncarry:], 1)
	if err != nil && err != io.EOF {
		g.err = err
		return
	}
	chunk := g.buf[:g.ncarry+n]
	tail := 0
	if err == nil {
		// Keep back an incomplete rune at the end of the chunk for the next read.
		i := len(chunk) - 1
		for k := 0; k < utf8.UTFMax-1 && i > 0 && !utf8.RuneStart(chunk[i]); k++ {
			i--
		}
		if !utf8.FullRune(chunk[i:]) {
			tail = len(chunk) - i
		}
	}
	valid := chunk[:len(chunk)-tail]
	if perr := g.check(valid); perr != nil {
		g.err = perr
		return
	}
	g.carryAt, g.ncarry = len(valid), tail
	g.pending = valid
	g.off += int64(len(valid))
	if err != nil {
		g.err = err
	}
}

// check validates one chunk that starts at offset g.off on line g.line and
// advances the line counters past it.
func (g *guard) check(b []byte) *ParseError {
	bad := len(b) // earliest bad position
	var reason string
	if i := bytes.IndexByte(b, 0); i >= 0 {
		bad, reason = i, "binary input (NUL byte)"
	}
	if !utf8.Valid(b[:bad]) {
		for i := 0; i < bad; {
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				bad, reason = i, "not UTF-8"
				break
			}
			i += size
		}
	}
	// Line lengths.
	ll := g.lineLen
	start := 0
	for start <= len(b) {
		j := bytes.IndexByte(b[start:], '\n')
		seg := j
		if j < 0 {
			seg = len(b) - start
		}
		if ll+seg > g.maxLine {
			if p := start + g.maxLine - ll; p < bad {
				bad, reason = p, fmt.Sprintf("line longer than %d bytes", g.maxLine)
			}
			break
		}
		if j < 0 {
			ll += seg
			break
		}
		ll = 0
		start += j + 1
	}
	if bad < len(b) {
		line := g.line + bytes.Count(b[:bad], []byte{'\n'})
		off := g.off + int64(bad)
		return &ParseError{Line: line, Offset: off, Reason: fmt.Sprintf("%s at byte %d", reason, off)}
	}
	g.line += bytes.Count(b, []byte{'\n'})
	g.lineLen = ll
	return nil
}

// lineReader yields the lines of a bufio.Reader without their terminators and
// counts them.
type lineReader struct {
	br   *bufio.Reader
	line int // number of the line last returned
	acc  []byte
}

// next returns the next line, without "\n" or "\r\n". The slice is valid until
// the next call. At the end it returns io.EOF; read errors (*ParseError from the
// guard) are returned as they are.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.acc = append(l.acc[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = l.br.ReadSlice('\n')
			l.acc = append(l.acc, b...)
		}
		b = l.acc
	}
	if err != nil && (err != io.EOF || len(b) == 0) {
		return nil, err
	}
	l.line++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, nil
}

func isBlank(b []byte) bool { return len(trimBytes(b)) == 0 }

// trimBytes removes white space and byte order marks at both ends.
func trimBytes(b []byte) []byte {
	b = bytes.TrimSpace(b)
	for bytes.HasPrefix(b, bom) || bytes.HasSuffix(b, bom) {
		b = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimPrefix(b, bom), bom))
	}
	return b
}

// trimString is trimBytes for strings.
func trimString(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "\ufeff") || strings.HasSuffix(s, "\ufeff") {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "\ufeff"), "\ufeff"))
	}
	return s
}

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

func parseTSV(br *bufio.Reader, b *builder) error {
	l := &lineReader{br: br}
	for {
		line, err := l.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if isBlank(line) {
			continue
		}
		b.begin(l.line)
		id, rest, _ := bytes.Cut(line, []byte{'\t'})
		for len(rest) > 0 {
			var t []byte
			t, rest, _ = bytes.Cut(rest, []byte{'\t'})
			b.tag(t)
		}
		if err := b.end(string(id)); err != nil {
			return err
		}
	}
}

func parseCommaLines(br *bufio.Reader, b *builder) error {
	l := &lineReader{br: br}
	for {
		line, err := l.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if isBlank(line) {
			continue
		}
		b.begin(l.line)
		rest := line
		for len(rest) > 0 {
			var t []byte
			t, rest, _ = bytes.Cut(rest, []byte{','})
			b.tag(t)
		}
		if err := b.end(strconv.Itoa(l.line)); err != nil {
			return err
		}
	}
}
