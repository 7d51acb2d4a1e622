package ce

import (
	"encoding/json"
	"fmt"
	"math"
)

// The metadata section of a model file (format 12 on) is Info as one JSON
// object, tagged with its own name and version:
//
//	{"section":"info","format":1,"corpus":…,"seed":…,…,"log":[…]}
//
// It is self-describing: every value is named, so a field added later is read
// by name where it is present and takes its zero value where it is not, and
// needs no new file format version (its zero value must mean what files
// without it did). Formats 1-11 wrote the fields in a fixed binary order, one
// appended per version; decodeInfoBinary still reads them. The JSON lies
// inside the checksummed payload like every other section, and Go's encoder
// writes the same bytes for the same Info, so a seed still determines the file.
const (
	infoSectionName   = "info"
	infoSectionFormat = 1
)

type infoSection struct {
	Section string `json:"section"`
	Format  int    `json:"format"`
	Info
}

// encodeInfo appends the metadata section.
func encodeInfo(e *encoder, in *Info) error {
	b, err := json.Marshal(infoSection{Section: infoSectionName, Format: infoSectionFormat, Info: *in})
	if err != nil {
		return fmt.Errorf("ce: model metadata: %w", err)
	}
	e.str(string(b))
	return nil
}

// decodeInfo reads the metadata section of a file of the given format version.
func decodeInfo(d *decoder, version uint32) Info {
	if version < 12 {
		return decodeInfoBinary(d, version)
	}
	raw := d.str()
	if d.err != nil {
		return Info{}
	}
	var s infoSection
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		d.fail("metadata section: %v", err)
		return Info{}
	}
	if s.Section != infoSectionName || s.Format != infoSectionFormat {
		d.fail("metadata section %q of format %d, this build reads %q of format %d", s.Section, s.Format, infoSectionName, infoSectionFormat)
		return Info{}
	}
	return s.Info
}

// MarshalJSON writes a log entry, its loss as null when it is not a finite
// number (a diverged epoch), which JSON cannot hold.
func (l LogEntry) MarshalJSON() ([]byte, error) {
	type plain LogEntry
	var loss *float64
	if !math.IsNaN(l.Loss) && !math.IsInf(l.Loss, 0) {
		loss = &l.Loss
	}
	return json.Marshal(struct {
		plain
		Loss *float64 `json:"loss"`
	}{plain(l), loss})
}

// UnmarshalJSON reads what MarshalJSON writes: a null loss is NaN.
func (l *LogEntry) UnmarshalJSON(b []byte) error {
	type plain LogEntry
	var v struct {
		plain
		Loss *float64 `json:"loss"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*l = LogEntry(v.plain)
	l.Loss = math.NaN()
	if v.Loss != nil {
		l.Loss = *v.Loss
	}
	return nil
}

// decodeInfoBinary reads the metadata of formats 1-11: Info's fields in a fixed
// binary order, one group appended per version (see FormatVersion).
func decodeInfoBinary(d *decoder, version uint32) Info {
	var in Info
	in.Corpus = d.str()
	in.Docs = d.int()
	in.TrainDocs = d.int()
	in.ValidDocs = d.int()
	in.Seed = d.u64()
	in.Topics = d.int()
	in.TermDim = d.int()
	in.ContextDim = d.int()
	in.Hidden = d.ints()
	in.BatchSize = d.int()
	in.LearningRate, in.Momentum, in.Decay = d.f64(), d.f64(), d.f64()
	in.DecayEvery = d.int()
	in.Alpha, in.Lambda, in.Rho, in.Beta, in.WithinDoc, in.WithinDocI3 = d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64()
	in.Pretrained = d.bool()
	if ep := d.ints(); d.err == nil && len(ep) == 4 {
		in.Epochs1, in.Epochs2, in.BestEpoch1, in.BestEpoch2 = ep[0], ep[1], ep[2], ep[3]
	} else {
		d.fail("bad epoch record")
	}
	in.ValidP2CE, in.ValidP2Siamese, in.ValidP2Random = d.f64(), d.f64(), d.f64()
	in.StopReason1 = d.str()
	in.StopReason2 = d.str()
	n := d.length(8 * 5)
	for i := 0; i < n && d.err == nil; i++ {
		in.Log = append(in.Log, LogEntry{Stage: d.str(), Epoch: d.int(), Loss: d.f64(), ValidP2: d.f64()})
		d.u64() // elapsed time: older files could record it; ignored
	}
	if version >= 2 {
		in.OutputSample = d.int()
	}
	if version >= 3 {
		in.EarlyStop = d.str()
		in.ValidMAPCE, in.ValidMAPSiamese = d.f64(), d.f64()
		for i := range in.Log {
			in.Log[i].ValidMAP = d.f64()
		}
	}
	in.InputScaling, in.TermNorm = "per-component", "none" // the only choices before version 4
	if version >= 4 {
		in.InputScaling = d.str()
		in.TermNorm = d.str()
	}
	if version >= 5 {
		in.Average = d.f64()
	}
	if version >= 6 {
		in.TermSmooth = d.f64()
	}
	in.Kappa = KappaPrinted // the only choice before version 7
	if version >= 7 {
		in.Kappa = d.str()
	}
	// Before version 8 the random split of `taglens train` was drawn with the
	// training seed; whether a split file was used was not recorded.
	in.SplitSeed = in.Seed
	if version >= 8 {
		in.SplitSeed = d.u64()
		in.SplitFromFile = d.bool()
	}
	in.Stage2From = in.BestEpoch1 // before version 9 stage 2 always started there
	if version >= 9 {
		in.Stage2From = d.int()
	}
	in.Context = ContextLDA // the only choice before version 10
	if version >= 10 {
		in.Context = d.str()
	}
	in.Stage2Loss, in.LearningRate2 = Stage2Eq6, in.LearningRate // the only choices before version 11
	if version >= 11 {
		in.Stage2Loss = d.str()
		in.RankingGroup = d.int()
		in.RankingTemperature = d.f64()
		in.LearningRate2 = d.f64()
	}
	return in
}
