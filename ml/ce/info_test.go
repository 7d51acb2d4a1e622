package ce

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

// encodeInfoBinary writes the metadata the way formats 1-11 did (format 11's
// fields), so that the tests can make files of that format.
func encodeInfoBinary(e *encoder, in *Info) {
	e.str(in.Corpus)
	e.int(in.Docs)
	e.int(in.TrainDocs)
	e.int(in.ValidDocs)
	e.u64(in.Seed)
	e.int(in.Topics)
	e.int(in.TermDim)
	e.int(in.ContextDim)
	e.ints(in.Hidden)
	e.int(in.BatchSize)
	for _, f := range []float64{in.LearningRate, in.Momentum, in.Decay} {
		e.f64(f)
	}
	e.int(in.DecayEvery)
	for _, f := range []float64{in.Alpha, in.Lambda, in.Rho, in.Beta, in.WithinDoc, in.WithinDocI3} {
		e.f64(f)
	}
	e.bool(in.Pretrained)
	e.ints([]int{in.Epochs1, in.Epochs2, in.BestEpoch1, in.BestEpoch2})
	for _, f := range []float64{in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random} {
		e.f64(f)
	}
	e.str(in.StopReason1)
	e.str(in.StopReason2)
	e.int(len(in.Log))
	for _, l := range in.Log {
		e.str(l.Stage)
		e.int(l.Epoch)
		e.f64(l.Loss)
		e.f64(l.ValidP2)
		e.u64(0) // elapsed time, kept in the format; never recorded, so a seed determines the file
	}
	e.int(in.OutputSample) // since version 2
	// Since version 3: the early-stopping criterion, the validation MAP of the
	// kept weights and of every log entry.
	e.str(in.EarlyStop)
	e.f64(in.ValidMAPCE)
	e.f64(in.ValidMAPSiamese)
	for _, l := range in.Log {
		e.f64(l.ValidMAP)
	}
	e.str(in.InputScaling) // since version 4
	e.str(in.TermNorm)
	e.f64(in.Average)    // since version 5
	e.f64(in.TermSmooth) // since version 6
	e.str(in.Kappa)      // since version 7
	e.u64(in.SplitSeed)  // since version 8
	e.bool(in.SplitFromFile)
	e.int(in.Stage2From) // since version 9
	e.str(in.Context)    // since version 10
	e.str(in.Stage2Loss) // since version 11
	e.int(in.RankingGroup)
	e.f64(in.RankingTemperature)
	e.f64(in.LearningRate2)
}

// frameVersion is frame with another format version in the header.
func frameVersion(payload []byte, version uint32) []byte {
	out := append([]byte(fileMagic), binary.LittleEndian.AppendUint32(nil, version)...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(payload)))
	out = append(out, payload...)
	sum := sha256.Sum256(payload)
	return append(out, sum[:]...)
}

// TestInfoSection checks that the metadata section round-trips every field of
// Info, and that a format-11 file (binary metadata) is still read with the
// same Info.
func TestInfoSection(t *testing.T) {
	_, m := trainSmall(t)
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Info(), m.Info()) {
		t.Errorf("format %d: Info changed in the round trip:\n got %+v\nwant %+v", FormatVersion, got.Info(), m.Info())
	}
	if !bytes.Contains(buf.Bytes(), []byte(`{"section":"info","format":1,"corpus":`)) {
		t.Error("the metadata section is not the tagged JSON object")
	}

	legacy, err := m.encodeWith(func(e *encoder) error { encodeInfoBinary(e, m.Info()); return nil })
	if err != nil {
		t.Fatal(err)
	}
	old, err := Read(bytes.NewReader(frameVersion(legacy, 11)))
	if err != nil {
		t.Fatalf("format 11: %v", err)
	}
	// Format 11 has no term widths (width.go): such a file reads without them.
	want := *m.Info()
	want.Width, want.WidthCE, want.WidthSiamese, want.ValidMAPWidthCE, want.ValidMAPWidthSiamese = "", 0, 0, 0, 0
	if !reflect.DeepEqual(old.Info(), &want) {
		t.Errorf("format 11: Info differs:\n got %+v\nwant %+v", old.Info(), &want)
	}
	if a, b := old.Params(VariantSiamese); b != nil || len(a) == 0 {
		t.Fatalf("format 11: params: %v", b)
	}
}

// TestInfoSectionFields checks what makes the section self-describing: a key
// this build does not know is skipped, a key a file lacks takes its zero
// value, a non-finite loss is kept (as null), and another section or format is
// refused by name.
func TestInfoSectionFields(t *testing.T) {
	in := Info{Corpus: "c", Seed: 3, Log: []LogEntry{{Stage: "stage1", Epoch: 1, Loss: math.NaN(), ValidMAP: 0.5}}}
	e := &encoder{}
	if err := encodeInfo(e, &in); err != nil {
		t.Fatal(err)
	}
	d := &decoder{b: e.b}
	out := decodeInfo(d, FormatVersion)
	if d.err != nil {
		t.Fatal(d.err)
	}
	if out.Corpus != "c" || out.Seed != 3 || len(out.Log) != 1 || !math.IsNaN(out.Log[0].Loss) || out.Log[0].ValidMAP != 0.5 {
		t.Errorf("round trip with a NaN loss: %+v", out)
	}
	for _, c := range []struct {
		json, err string
		want      Info
	}{
		{`{"section":"info","format":1,"corpus":"x","a_later_field":[1,2]}`, "", Info{Corpus: "x"}},
		{`{"section":"info","format":1}`, "", Info{}},
		{`{"section":"info","format":2,"corpus":"x"}`, "format 2", Info{}},
		{`{"section":"net","format":1}`, `"net"`, Info{}},
		{`{"section":"info","format":1,"seed":"one"}`, "metadata section", Info{}},
	} {
		e := &encoder{}
		e.str(c.json)
		d := &decoder{b: e.b}
		got := decodeInfo(d, FormatVersion)
		switch {
		case c.err == "" && d.err != nil:
			t.Errorf("%s: %v", c.json, d.err)
		case c.err != "" && (d.err == nil || !strings.Contains(d.err.Error(), c.err)):
			t.Errorf("%s: error %v, want one naming %s", c.json, d.err, c.err)
		case c.err == "" && !reflect.DeepEqual(got, c.want):
			t.Errorf("%s: got %+v, want %+v", c.json, got, c.want)
		}
	}
}
