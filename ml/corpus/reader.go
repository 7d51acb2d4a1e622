package corpus

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

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
