package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/taglens/taglens/ml/internal/defaults"
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
	DefaultMaxTagsPerDoc = 10_000     // distinct tags in one document (more: the document is skipped)
	DefaultMaxTagBytes   = 256        // bytes of one tag (after trimming)
	DefaultMaxBytes      = 1 << 30    // bytes of input, after decompression
	DefaultMaxDocs       = 10_000_000 // documents read (kept, dropped or skipped)
	// DefaultMaxMemory bounds the memory a parse holds, whatever the size of
	// its input (see ParseOptions.MaxMemory): pubmed-genes (754,859 documents,
	// 1.8 million tag uses) needs about 120 MiB of it.
	DefaultMaxMemory = 400 << 20
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
	// MaxTagsPerDoc bounds the number of distinct tags of one document (default
	// DefaultMaxTagsPerDoc), and so the memory one document takes while it is
	// read. A document over it is skipped and listed in Corpus.Skipped, not
	// refused: one genome-wide document should not refuse a corpus of 750,000.
	MaxTagsPerDoc int
	// MaxDocs bounds the number of documents read, kept or not (default DefaultMaxDocs).
	MaxDocs int
	// MaxMemory bounds the bytes a parse holds in memory (default
	// DefaultMaxMemory), as estimated from what it has read: per document
	// 48 bytes and its id's (the id and the duplicate check), 40 more when it
	// is kept (its Document), 16 per tag use (a reference to the tag) and, per
	// distinct tag, 64 bytes and the tag's. MaxBytes alone does not bound
	// memory: a gigabyte of short tags is half a billion tag uses. The
	// process's peak is higher by the collector's slack (measured: 430 to
	// 570 MB of peak RSS for gzip bombs refused at the default 400 MiB).
	MaxMemory int64
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
	// Progress, when set, is called on the parsing goroutine every
	// ProgressEvery documents read (kept, dropped or skipped) with what has
	// been read so far, so that a long parse can say how far it is.
	Progress func(Progress)
}

// ProgressEvery is how many documents a parse reads between two calls of
// ParseOptions.Progress.
const ProgressEvery = 4096

// Progress is how far a parse is: the documents read (kept, dropped or
// skipped) and the bytes of input read, after decompression (the parser
// reads ahead of the documents by up to a buffer of about 128 KiB).
type Progress struct {
	Docs  int
	Bytes int64
}

func (o *ParseOptions) defaults() {
	defaults.Positive(&o.MaxLineBytes, DefaultMaxLineBytes)
	defaults.Positive(&o.MaxTagsPerDoc, DefaultMaxTagsPerDoc)
	defaults.Positive(&o.MaxDocs, DefaultMaxDocs)
	defaults.Positive(&o.MaxMemory, DefaultMaxMemory)
	defaults.Positive(&o.MaxTagBytes, DefaultMaxTagBytes)
	defaults.Positive(&o.MaxBytes, DefaultMaxBytes)
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

// ErrTooLarge is wrapped by the *ParseError of an input over one of the limits
// that bound a parse's memory: ParseOptions.MaxBytes, MaxDocs or MaxMemory.
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
// empty; Corpus.Detected then says which rule chose it. It streams, in one pass:
// the input is never held whole, and memory grows with the corpus kept (each
// distinct tag once, documents as lists of references to them), which
// opt.MaxMemory bounds.
//
// Input that starts with the gzip magic bytes (1f 8b) is decompressed first,
// whatever the format; a damaged gzip stream is a *ParseError starting "gzip:".
// Other compressions (zip, bzip2, xz, zstd) are recognised and refused by name.
// More than opt.MaxBytes bytes of (decompressed) input, counted as they are
// decompressed, more than opt.MaxDocs documents and a corpus that needs more
// than opt.MaxMemory are a *ParseError wrapping ErrTooLarge, returned on the
// line that passes the limit.
//
// Validation: input that is not UTF-8 or holds a NUL byte, over-long lines, a
// duplicate document id, an empty id, a tag holding a control or bidirectional
// formatting character (see doc.go), or a syntax error of the format are
// errors (a *ParseError naming the line); so are an empty corpus and a corpus
// of fewer than 2 documents. Tags are trimmed of white space, empty tags
// ignored and repeated tags kept once (first occurrence's position).
// Documents left without tags are dropped; Corpus.Dropped counts them and
// Corpus.Warnings names the first MaxWarnings of them. Documents with more than
// opt.MaxTagsPerDoc distinct tags are skipped whole and listed in
// Corpus.Skipped.
func Parse(r io.Reader, opt ParseOptions) (*Corpus, error) {
	return parse(r, opt, nil)
}

// A DocSink takes the documents a parse keeps, in their order, instead of
// the Corpus (ParseTo): a store that packs them as it reads.
type DocSink interface {
	// Add takes one kept document. Its Tags slice is the parser's and
	// changes after the call; its strings (the id, the tags) do not. An
	// error ends the parse with it.
	Add(Document) error
	// Bytes is the memory the sink holds, counted with the parse's own
	// against ParseOptions.MaxMemory.
	Bytes() int64
}

// ParseTo is Parse handing each kept document to sink as it is read: the
// documents are never held by the parser, and the returned Corpus has no
// Docs (its name, format, dropped and skipped documents and tag cap are
// set). The memory bound counts what the parse holds (the document ids and
// the distinct tags) and sink.Bytes. The checks of the whole corpus (fewer
// than two documents kept) are Parse's.
func ParseTo(r io.Reader, opt ParseOptions, sink DocSink) (*Corpus, error) {
	if sink == nil {
		return nil, errors.New("corpus: ParseTo without a sink")
	}
	return parse(r, opt, sink)
}

func parse(r io.Reader, opt ParseOptions, sink DocSink) (*Corpus, error) {
	opt.defaults()
	f, err := ParseFormat(string(opt.Format))
	if err != nil {
		return nil, err
	}
	in, gz, err := decompress(r)
	if err != nil {
		return nil, err
	}
	limit := &sizeLimit{r: in, max: opt.MaxBytes, gz: gz}
	g := &guard{r: limit, maxLine: opt.MaxLineBytes, line: 1, buf: make([]byte, 64<<10)}
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
	b.input = limit
	b.sink = sink
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
