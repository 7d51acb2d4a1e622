package features

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Binary formats (all integers and floats little-endian, floats as IEEE-754
// float64 bits, counts as uint64):
//
//	Projection   "TLPJ" u32 version=1, u64 In, u64 Out, u8 Randomized,
//	             f64 TotalVariance, f64[In] Mean, f64[In·Out] W, f64[Out] Variance,
//	             f64[Out] Lo, f64[Out] Hi, f64[Out] MeanW
//	TermFeatures "TLTF" u32 version=2, u64 V, u64 NumDocs, u8 Normalize, u64[V] DF,
//	             f64[V] IDF, u64 len + Projection bytes, f64[V·Out] Scaled
//	             (version 1 has no Normalize byte and means Normalize = false)
//
// A new layout gets a new version number; old versions stay readable.
const (
	projMagic   = "TLPJ"
	termsMagic  = "TLTF"
	codecVer    = 1       // Projection
	termsVer    = 3       // TermFeatures (2: Normalize; 3: Smooth, Assoc)
	maxElements = 1 << 31 // sanity bound against corrupted counts
)

// ErrFormat is wrapped by the UnmarshalBinary methods for malformed input.
var ErrFormat = errors.New("features: malformed binary data")

type enc struct{ b []byte }

func (e *enc) u64(v uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) f64(v float64) { e.u64(math.Float64bits(v)) }

// flag appends one byte, 1 for true and 0 for false.
func (e *enc) flag(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *enc) f64s(v []float64) {
	for _, x := range v {
		e.f64(x)
	}
}

type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(msg string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrFormat, msg)
	}
}

func (d *dec) u64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }

// count reads a u64 element count and checks that n·size bytes remain.
func (d *dec) count(size int) int {
	n := d.u64()
	if d.err == nil && (n > maxElements || int(n)*size > len(d.b)) {
		d.fail("count exceeds data")
		return 0
	}
	return int(n)
}

func (d *dec) f64s(n int) []float64 {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > maxElements || n*8 > len(d.b) {
		d.fail("truncated array")
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = d.f64()
	}
	return v
}

func (d *dec) header(magic string) {
	d.headerVersion(magic, codecVer)
}

// headerVersion checks the magic and returns the version, which must be in
// [1, maxVer].
func (d *dec) headerVersion(magic string, maxVer uint32) uint32 {
	if len(d.b) < 8 || string(d.b[:4]) != magic {
		d.fail("bad magic, want " + magic)
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b[4:8])
	if v < 1 || v > maxVer {
		d.fail(fmt.Sprintf("unsupported version %d", v))
		return 0
	}
	d.b = d.b[8:]
	return v
}

func header(magic string) *enc { return headerVersion(magic, codecVer) }

func headerVersion(magic string, ver uint32) *enc {
	e := &enc{b: []byte(magic)}
	e.b = binary.LittleEndian.AppendUint32(e.b, ver)
	return e
}

// MarshalBinary implements encoding.BinaryMarshaler (format in codec.go).
func (p *Projection) MarshalBinary() ([]byte, error) {
	e := header(projMagic)
	e.u64(uint64(p.In))
	e.u64(uint64(p.Out))
	e.flag(p.Randomized)
	e.f64(p.TotalVariance)
	e.f64s(p.Mean)
	e.f64s(p.W)
	e.f64s(p.Variance)
	e.f64s(p.Lo)
	e.f64s(p.Hi)
	e.f64s(p.MeanW)
	return e.b, nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. Malformed or truncated
// data give an error wrapping ErrFormat.
func (p *Projection) UnmarshalBinary(data []byte) error {
	d := &dec{b: data}
	d.decodeProjection(p)
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	return d.err
}

func (d *dec) decodeProjection(p *Projection) {
	d.header(projMagic)
	in := d.count(8)
	out := d.count(8)
	if d.err != nil {
		return
	}
	if in < 1 || out < 1 || out > in {
		d.fail("bad projection shape")
		return
	}
	if len(d.b) < 1 {
		d.fail("truncated")
		return
	}
	rnd := d.b[0]
	d.b = d.b[1:]
	if rnd > 1 {
		d.fail("bad flag")
		return
	}
	q := Projection{In: in, Out: out, Randomized: rnd == 1}
	q.TotalVariance = d.f64()
	q.Mean = d.f64s(in)
	q.W = d.f64s(in * out)
	q.Variance = d.f64s(out)
	q.Lo = d.f64s(out)
	q.Hi = d.f64s(out)
	q.MeanW = d.f64s(out)
	if d.err == nil {
		*p = q
	}
}

// MarshalBinary implements encoding.BinaryMarshaler (format in codec.go).
func (f *TermFeatures) MarshalBinary() ([]byte, error) {
	e := headerVersion(termsMagic, termsVer)
	e.u64(uint64(f.V))
	e.u64(uint64(f.NumDocs))
	e.flag(f.Normalize)
	for _, x := range f.DF {
		e.u64(uint64(x))
	}
	e.f64s(f.IDF)
	pb, err := f.Proj.MarshalBinary()
	if err != nil {
		return nil, err
	}
	e.u64(uint64(len(pb)))
	e.b = append(e.b, pb...)
	e.f64s(f.Scaled)
	e.f64(f.Smooth) // since version 3: α, then Assoc when α > 0
	if f.Smooth > 0 {
		for _, a := range f.Assoc {
			e.u64(uint64(int64(a)))
		}
	}
	return e.b, nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. Malformed or truncated
// data give an error wrapping ErrFormat.
func (f *TermFeatures) UnmarshalBinary(data []byte) error {
	d := &dec{b: data}
	ver := d.headerVersion(termsMagic, termsVer)
	v := d.count(16)
	n := d.u64()
	var norm bool
	if ver >= 2 && d.err == nil {
		if len(d.b) < 1 || d.b[0] > 1 {
			d.fail("bad normalize flag")
		} else {
			norm = d.b[0] == 1
			d.b = d.b[1:]
		}
	}
	if d.err != nil {
		return d.err
	}
	if v < 1 || n < 2 || n > maxElements {
		d.fail("bad term features shape")
		return d.err
	}
	g := TermFeatures{V: v, NumDocs: int(n), DF: make([]int, v), Normalize: norm}
	for i := range g.DF {
		x := d.u64()
		if x > n {
			d.fail("document frequency exceeds document count")
		}
		g.DF[i] = int(x)
	}
	g.IDF = d.f64s(v)
	plen := d.count(1)
	if d.err != nil {
		return d.err
	}
	pd := &dec{b: d.b[:plen]}
	d.b = d.b[plen:]
	g.Proj = new(Projection)
	pd.decodeProjection(g.Proj)
	if pd.err != nil {
		return pd.err
	}
	if len(pd.b) != 0 || g.Proj.In != v {
		d.fail("projection does not match vocabulary")
		return d.err
	}
	g.Scaled = d.f64s(v * g.Proj.Out)
	if ver >= 3 && d.err == nil {
		g.Smooth = d.f64()
		if g.Smooth > 0 {
			g.Assoc = make([]int, v)
			for i := range g.Assoc {
				g.Assoc[i] = int(int64(d.u64()))
			}
		}
		if err := g.CheckSmooth(); d.err == nil && err != nil {
			d.fail("bad smoothing: " + err.Error())
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return d.err
	}
	*f = g
	return nil
}
