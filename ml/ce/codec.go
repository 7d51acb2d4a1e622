package ce

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Model file layout (all integers little-endian):
//
//	offset  size  field
//	0       8     magic "TLMODEL\x00"
//	8       4     format version (uint32, FormatVersion)
//	12      8     payload length n (uint64)
//	20      n     payload (the sections written by Model.encode)
//	20+n    32    SHA-256 of the payload
//
// A reader checks the magic, the version, that exactly n payload bytes and the
// 32-byte checksum follow, and that the checksum matches, before decoding anything.
const (
	fileMagic = "TLMODEL\x00"
	// FormatVersion is the version of the model file format this package writes.
	// Version 2 appends Info.OutputSample after the training log; version 1
	// files (without it) are still read, with OutputSample = 0 (exact loss).
	// Version 3 appends Info.EarlyStop, ValidMAPCE, ValidMAPSiamese and the
	// validation MAP of every log entry. Version 4 appends Info.InputScaling
	// and Info.TermNorm (older files were all "per-component" and "none").
	// Version 5 appends Info.Average (older files: 0, the last SGD iterate).
	// Version 6 appends Info.TermSmooth and, when it is positive, the
	// strongest associate of every term (older files: no smoothing).
	// Version 7 appends Info.Kappa (older files: "printed"). Version 8 appends
	// Info.SplitSeed and Info.SplitFromFile (older files: the training seed, false).
	// Version 9 appends Info.Stage2From (older files: Info.BestEpoch1, the only start).
	// Version 10 appends Info.Context (older files: "lda"). Version 11 appends
	// Info.Stage2Loss, RankingGroup, RankingTemperature and LearningRate2
	// (older files: "eq6" and the stage-1 learning rate). Version 12 writes the
	// metadata as one self-describing JSON section (info.go); a field added to
	// it since needs no new version.
	FormatVersion = 12
	maxPayload    = 1 << 34 // 16 GiB: refuse absurd lengths from a corrupted header
)

// ErrCorrupt is wrapped by every error ReadFile and Read return for a file that is
// not a complete, intact taglens model file.
var ErrCorrupt = errors.New("ce: corrupt or truncated model file")

// encoder appends primitive values to a buffer in little-endian order.
type encoder struct{ b []byte }

func (e *encoder) u64(v uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) int(v int)     { e.u64(uint64(int64(v))) }
func (e *encoder) f64(v float64) { e.u64(math.Float64bits(v)) }
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) str(s string) { e.int(len(s)); e.b = append(e.b, s...) }
func (e *encoder) f64s(v []float64) {
	e.int(len(v))
	for _, x := range v {
		e.f64(x)
	}
}
func (e *encoder) ints(v []int) {
	e.int(len(v))
	for _, x := range v {
		e.int(x)
	}
}
func (e *encoder) strs(v []string) {
	e.int(len(v))
	for _, s := range v {
		e.str(s)
	}
}

// decoder reads what encoder wrote. The first error sticks; later reads return
// zero values, so callers check err once at the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail("need %d bytes, %d left", n, len(d.b))
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) u64() uint64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}
func (d *decoder) int() int     { return int(int64(d.u64())) }
func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }
func (d *decoder) bool() bool   { p := d.take(1); return p != nil && p[0] == 1 }
func (d *decoder) length(elem int) int {
	n := d.int()
	// n > len/elem, not n*elem > len: a corrupt n near 2^63 would overflow the
	// product (found by FuzzDecode).
	if d.err == nil && (n < 0 || n > len(d.b)/elem) {
		d.fail("length %d exceeds remaining %d bytes", n, len(d.b))
		return 0
	}
	return n
}
func (d *decoder) str() string { n := d.length(1); return string(d.take(n)) }
func (d *decoder) f64s() []float64 {
	n := d.length(8)
	if d.err != nil {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = d.f64()
	}
	return v
}
func (d *decoder) ints() []int {
	n := d.length(8)
	if d.err != nil {
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = d.int()
	}
	return v
}
func (d *decoder) strs() []string {
	n := d.length(8)
	if d.err != nil {
		return nil
	}
	v := make([]string, n)
	for i := range v {
		v[i] = d.str()
	}
	return v
}

// frame wraps a payload in the file layout: magic, version, length, payload, SHA-256.
func frame(payload []byte) []byte {
	out := make([]byte, 0, 20+len(payload)+sha256.Size)
	out = append(out, fileMagic...)
	out = binary.LittleEndian.AppendUint32(out, FormatVersion)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(payload)))
	out = append(out, payload...)
	sum := sha256.Sum256(payload)
	return append(out, sum[:]...)
}

// unframe checks the layout of a whole file and returns its payload and format
// version (1..FormatVersion).
func unframe(file []byte) ([]byte, uint32, error) {
	if len(file) < 20 {
		return nil, 0, fmt.Errorf("%w: %d bytes is shorter than the 20-byte header", ErrCorrupt, len(file))
	}
	if string(file[:8]) != fileMagic {
		return nil, 0, fmt.Errorf("%w: not a taglens model file (bad magic)", ErrCorrupt)
	}
	version := binary.LittleEndian.Uint32(file[8:12])
	if version < 1 || version > FormatVersion {
		return nil, 0, fmt.Errorf("ce: model file format version %d, this build reads versions 1 to %d", version, FormatVersion)
	}
	n := binary.LittleEndian.Uint64(file[12:20])
	if n > maxPayload {
		return nil, 0, fmt.Errorf("%w: payload length %d is implausible", ErrCorrupt, n)
	}
	if want := 20 + n + sha256.Size; uint64(len(file)) != want {
		if uint64(len(file)) < want {
			return nil, 0, fmt.Errorf("%w: truncated: %d bytes, header promises %d", ErrCorrupt, len(file), want)
		}
		return nil, 0, fmt.Errorf("%w: %d trailing bytes after the checksum", ErrCorrupt, uint64(len(file))-want)
	}
	payload := file[20 : 20+n]
	sum := sha256.Sum256(payload)
	if !bytes.Equal(sum[:], file[20+n:]) {
		return nil, 0, fmt.Errorf("%w: SHA-256 checksum mismatch", ErrCorrupt)
	}
	return payload, version, nil
}

// readAllLimited reads r to the end, refusing more than maxPayload+header bytes.
func readAllLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxPayload+20+sha256.Size+1))
	if err != nil {
		return nil, err
	}
	return b, nil
}

func openFile(path string) (*os.File, error) { return os.Open(path) }
