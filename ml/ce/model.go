package ce

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/taglens/taglens/internal/atomicfile"
	"github.com/taglens/taglens/ml/corpus"
	"github.com/taglens/taglens/ml/features"
	"github.com/taglens/taglens/ml/topic"
)

// A LogEntry is one validation evaluation during training.
type LogEntry struct {
	Stage   string  `json:"stage"`    // "stage1", "stage2" or "pilot α=…,λ=…"
	Epoch   int     `json:"epoch"`    // epochs done in the stage
	Loss    float64 `json:"loss"`     // mean training loss of the last epoch (Eq. 5 or Eq. 7)
	ValidP2 float64 `json:"valid_p2"` // P@2 of the priming protocol on the validation documents
	// ValidMAP is the MAP of the extended priming protocol (Eq. 9, 11) on the
	// validation documents (zero in files of format version < 3).
	ValidMAP float64 `json:"valid_map"`
	// ValidMRR is the mean reciprocal rank of the completion protocol on the
	// validation documents, computed only when early stopping uses it
	// (EarlyStopCompletion); zero otherwise.
	ValidMRR float64 `json:"valid_mrr,omitempty"`
}

// Info records how a model was trained: the resolved hyper-parameters, the data
// and the training log. It is stored in the model file.
type Info struct {
	Corpus    string `json:"corpus"`
	Docs      int    `json:"docs"`       // documents in the corpus
	TrainDocs int    `json:"train_docs"` // documents used for training
	ValidDocs int    `json:"valid_docs"` // documents used for early stopping
	// LongDocs training documents had more than MaxDocTags tags and were left
	// out of training (Config.MaxDocTags); both are absent (zero) when none was.
	LongDocs int `json:"long_docs,omitempty"`
	// ValidTerms, when not 0, is the size of the sample of vocabulary terms
	// the validation ranked each validation document's terms among (above
	// ValidTerms terms; the constant's comment says how it is drawn).
	ValidTerms int `json:"valid_terms,omitempty"`
	// RareTerms training terms were in fewer than MinTermDocs training
	// documents and left out of the vocabulary (above Config.MaxTerms terms);
	// both zero when none was.
	RareTerms       int     `json:"rare_terms,omitempty"`
	MinTermDocs     int     `json:"min_term_docs,omitempty"`
	MaxDocTags      int     `json:"max_doc_tags,omitempty"`
	Seed            uint64  `json:"seed"`
	SplitSeed       uint64  `json:"split_seed"`      // seed of the random split (Config.SplitSeed), 0 with SplitFromFile
	SplitFromFile   bool    `json:"split_from_file"` // the split was the corpus's own (Config.SplitFromFile)
	Topics          int     `json:"topics"`          // |Φ|
	TermDim         int     `json:"term_dim"`        // width of the scaled term part
	ContextDim      int     `json:"context_dim"`     // width of the scaled context part
	Hidden          []int   `json:"hidden"`
	BatchSize       int     `json:"batch_size"`
	LearningRate    float64 `json:"learning_rate"`
	Momentum        float64 `json:"momentum"`
	Decay           float64 `json:"decay"`
	DecayEvery      int     `json:"decay_every"`
	Alpha           float64 `json:"alpha"`  // Eq. 7 trade-off used
	Lambda          float64 `json:"lambda"` // Eq. 6 sensitivity used
	Rho             float64 `json:"rho"`
	Beta            float64 `json:"beta"`
	WithinDoc       float64 `json:"within_doc"`
	WithinDocI3     float64 `json:"within_doc_i3"`
	OutputSample    int     `json:"output_sample"`     // M of the sampled Eq. 5, 0 for the exact loss
	Pretrained      bool    `json:"pretrained"`        // stage 0 ran
	Epochs1         int     `json:"epochs1"`           // epochs run in stage 1
	Epochs2         int     `json:"epochs2"`           // epochs run in stage 2
	BestEpoch1      int     `json:"best_epoch1"`       // stage-1 epoch whose weights were kept
	BestEpoch2      int     `json:"best_epoch2"`       // stage-2 epoch whose weights were kept
	ValidP2CE       float64 `json:"valid_p2_ce"`       // validation P@2 (priming) of the kept stage-1 weights
	ValidP2Siamese  float64 `json:"valid_p2_siamese"`  // validation P@2 (priming) of the kept stage-2 weights
	EarlyStop       string  `json:"early_stop"`        // criterion of early stopping and model selection (Config.EarlyStop)
	ValidMAPCE      float64 `json:"valid_map_ce"`      // validation extended-priming MAP of the kept stage-1 weights
	ValidMAPSiamese float64 `json:"valid_map_siamese"` // validation extended-priming MAP of the kept stage-2 weights
	// Width is WidthFit when term widths were fitted (empty: none); WidthCE
	// and WidthSiamese are β of each network (0: the paper's distances), and
	// ValidMAPWidth… the validation extended MAP with it (width.go; above
	// ValidTerms terms, among the validation sample of terms).
	Width                string  `json:"width,omitempty"`
	WidthCE              float64 `json:"width_ce,omitempty"`
	WidthSiamese         float64 `json:"width_siamese,omitempty"`
	ValidMAPWidthCE      float64 `json:"valid_map_width_ce,omitempty"`
	ValidMAPWidthSiamese float64 `json:"valid_map_width_siamese,omitempty"`
	ValidP2Random        float64 `json:"valid_p2_random"` // expected P@2 of random ranking on the validation documents
	InputScaling         string  `json:"input_scaling"`   // scaling of the input parts (Config.InputScaling)
	TermNorm             string  `json:"term_norm"`       // normalization of t(τ) before the PCA (Config.TermNorm)
	TermSmooth           float64 `json:"term_smooth"`     // α of the smoothing before Eq. 2 (Config.TermSmooth), 0 for none
	Average              float64 `json:"weight_average"`  // γ of the weight moving average (Config.Average), 0 for none
	Kappa                string  `json:"kappa"`           // class weights of Eq. 5 (Config.Kappa)
	StopReason1          string  `json:"stop_reason1"`
	// Stage1Restart says why stage 1 started again from random initial
	// weights (Config.FlatStage1); empty when it did not.
	Stage1Restart string `json:"stage1_restart,omitempty"`
	Stage2From    int    `json:"stage2_from"` // stage-1 epoch whose weights stage 2 started from (Config.Stage2Start)
	StopReason2   string `json:"stop_reason2"`
	Context       string `json:"context"` // the context part (Config.Context)
	// The distance loss of stage 2 (Config.Stage2Loss), its group size and
	// temperature with Stage2Ranking, and stage 2's initial learning rate.
	Stage2Loss         string     `json:"stage2_loss"`
	RankingGroup       int        `json:"ranking_group,omitempty"`
	RankingTemperature float64    `json:"ranking_temperature,omitempty"`
	RankingAnchors     int        `json:"ranking_anchors,omitempty"`
	LearningRate2      float64    `json:"learning_rate2"`
	Log                []LogEntry `json:"log,omitempty"`
}

// Model is a trained taglens model: everything needed to compute CE(τ|δ) for any
// term in any context with the CE and Siamese-CE networks, and to embed OOV terms.
// A Model is immutable after Train or Read and safe for concurrent use.
type Model struct {
	vocab   *corpus.Vocabulary
	terms   *features.TermFeatures // idf, PCA and scaled t(τ) of every term (Eq. 2)
	ctxProj *features.Projection   // PCA + scaling of the context l(δ) (Eq. 3)
	lda     *topic.LDA
	sizes   []int
	params  map[Variant][]float64 // VariantCE, VariantSiamese
	info    Info

	nets map[Variant]*embedder
	fold foldIndex // case-folded spellings of Γ, built on first use (lookup.go)
}

// Info returns the training record of m. The caller must not modify it.
func (m *Model) Info() *Info { return &m.info }

// Vocabulary returns the training vocabulary Γ; term indices of every method
// refer to it.
func (m *Model) Vocabulary() *corpus.Vocabulary { return m.vocab }

// Topics returns the LDA model of the local context.
func (m *Model) Topics() *topic.LDA { return m.lda }

// Sizes returns the layer sizes of the subnetwork (input, hidden..., |Γ|).
func (m *Model) Sizes() []int { return slices.Clone(m.sizes) }

// Params returns a copy of the flat parameter vector of a variant (nn's layout).
func (m *Model) Params(variant Variant) ([]float64, error) {
	p, ok := m.params[variant]
	if !ok {
		return nil, fmt.Errorf("ce: unknown variant %q (want %q or %q)", variant, VariantCE, VariantSiamese)
	}
	return slices.Clone(p), nil
}

// CEDim returns the dimension of the concept embedding.
func (m *Model) CEDim() int { return m.sizes[len(m.sizes)-2] }

// init builds the derived inference state.
func (m *Model) init() {
	m.nets = make(map[Variant]*embedder, len(m.params))
	for v, p := range m.params {
		e := newEmbedder(m.sizes, p, m.termRows(), m.ctxDim(), m.prodDim())
		e.invWidth = invWidths(m.terms.DF, m.info.widthOf(v))
		m.nets[v] = e
	}
}

// termRows returns the scaled term inputs as row views.
func (m *Model) termRows() [][]float64 {
	rows := make([][]float64, m.terms.V)
	for i := range rows {
		rows[i] = m.terms.Row(i)
	}
	return rows
}

func (m *Model) net(variant Variant) (*embedder, error) {
	e, ok := m.nets[variant]
	if !ok {
		return nil, fmt.Errorf("ce: unknown variant %q (want %q or %q)", variant, VariantCE, VariantSiamese)
	}
	return e, nil
}

// Write writes m in the model file format (see codec.go) to w.
func (m *Model) Write(w io.Writer) error {
	payload, err := m.encode()
	if err == nil {
		_, err = w.Write(frame(payload))
	}
	if err != nil {
		return fmt.Errorf("ce: write model: %w", err)
	}
	return nil
}

// WriteFile writes m to path atomically: a temporary file in the same directory
// is written, synced and renamed over path.
func (m *Model) WriteFile(path string) error {
	payload, err := m.encode()
	if err == nil {
		err = atomicfile.WriteBytes(path, 0o644, frame(payload))
	}
	if err != nil {
		return fmt.Errorf("ce: write model %s: %w", path, err)
	}
	return nil
}

// Read reads a model written by Write. A truncated or corrupted input gives an
// error wrapping ErrCorrupt.
func Read(r io.Reader) (*Model, error) {
	b, err := readAllLimited(r)
	if err != nil {
		return nil, fmt.Errorf("ce: read model: %w", err)
	}
	payload, version, err := unframe(b)
	if err != nil {
		return nil, err
	}
	m, err := decode(payload, version)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ReadFile reads the model file at path.
func ReadFile(path string) (*Model, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, fmt.Errorf("ce: read model: %w", err)
	}
	defer f.Close()
	m, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

const payloadTag = "taglens-ce"

func encodeProjection(e *encoder, p *features.Projection) {
	e.int(p.In)
	e.int(p.Out)
	e.f64s(p.Mean)
	e.f64s(p.W)
	e.f64s(p.Variance)
	e.f64(p.TotalVariance)
	e.f64s(p.Lo)
	e.f64s(p.Hi)
	e.f64s(p.MeanW)
	e.bool(p.Randomized)
}

func decodeProjection(d *decoder) *features.Projection {
	p := &features.Projection{In: d.int(), Out: d.int()}
	p.Mean = d.f64s()
	p.W = d.f64s()
	p.Variance = d.f64s()
	p.TotalVariance = d.f64()
	p.Lo = d.f64s()
	p.Hi = d.f64s()
	p.MeanW = d.f64s()
	p.Randomized = d.bool()
	if d.err == nil && (p.In <= 0 || p.Out <= 0 || len(p.Mean) != p.In || len(p.W) != p.In*p.Out ||
		len(p.Lo) != p.Out || len(p.Hi) != p.Out || len(p.MeanW) != p.Out) {
		d.fail("inconsistent PCA projection shapes")
	}
	return p
}

// encode returns the payload: every section in a fixed order.
func (m *Model) encode() ([]byte, error) {
	return m.encodeWith(func(e *encoder) error { return encodeInfo(e, &m.info) })
}

// encodeWith is encode with the metadata section written by info (the tests
// write the binary metadata of older formats with it).
func (m *Model) encodeWith(info func(*encoder) error) ([]byte, error) {
	e := &encoder{}
	e.str(payloadTag)
	e.strs(m.vocab.Terms())
	e.int(m.terms.V)
	e.int(m.terms.NumDocs)
	e.ints(m.terms.DF)
	e.f64s(m.terms.IDF)
	encodeProjection(e, m.terms.Proj)
	e.f64s(m.terms.Scaled)
	encodeProjection(e, m.ctxProj)
	e.int(m.lda.K)
	e.int(m.lda.V)
	e.f64(m.lda.Alpha)
	e.f64(m.lda.Beta)
	e.f64s(m.lda.Phi)
	e.f64s(m.lda.TopicMass)
	e.ints(m.sizes)
	for _, v := range Variants {
		e.str(string(v))
		e.f64s(m.params[v])
	}
	if err := info(e); err != nil {
		return nil, err
	}
	// Since version 6: the strongest associate of every term when t(τ) was
	// smoothed (Info.TermSmooth > 0), for the OOV features.
	if m.info.TermSmooth > 0 {
		e.ints(m.terms.Assoc)
	}
	return e.b, nil
}

// decode parses and validates the payload of a file of the given format
// version. Kept in one function: it reads the payload's fields in file order,
// and that order is the format.
func decode(payload []byte, version uint32) (*Model, error) {
	d := &decoder{b: payload}
	if tag := d.str(); d.err == nil && tag != payloadTag {
		d.fail("unknown payload %q", tag)
	}
	m := &Model{params: map[Variant][]float64{}}
	terms := d.strs()
	m.terms = &features.TermFeatures{V: d.int(), NumDocs: d.int()}
	m.terms.DF = d.ints()
	m.terms.IDF = d.f64s()
	m.terms.Proj = decodeProjection(d)
	m.terms.Scaled = d.f64s()
	m.ctxProj = decodeProjection(d)
	k, v := d.int(), d.int()
	alpha, beta := d.f64(), d.f64()
	phi := d.f64s()
	mass := d.f64s()
	m.sizes = d.ints()
	for _, want := range Variants {
		if got := d.str(); d.err == nil && got != string(want) {
			d.fail("network %q where %q was expected", got, want)
		}
		m.params[want] = d.f64s()
	}
	m.info = decodeInfo(d, version)
	m.terms.Normalize = m.info.TermNorm == "unit"
	m.terms.Smooth = m.info.TermSmooth
	if m.info.TermSmooth > 0 && d.err == nil {
		m.terms.Assoc = d.ints()
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d unread bytes at the end of the payload", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	if err := m.checkSections(terms, k, v, alpha, beta, phi, mass); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	m.vocab = corpus.VocabularyOf(terms)
	m.init()
	return m, nil
}

// checkSections checks that the decoded sections of a model agree with each
// other (vocabulary, term features, context projection, network sizes and
// parameters, LDA), and builds the LDA from its decoded parts.
func (m *Model) checkSections(terms []string, k, v int, alpha, beta float64, phi, mass []float64) error {
	if len(terms) == 0 {
		return fmt.Errorf("empty vocabulary")
	}
	if !slices.IsSorted(terms) {
		// NewVocabulary sorts; a model with another order is not ours.
		return fmt.Errorf("vocabulary not sorted")
	}
	for i := 1; i < len(terms); i++ {
		if terms[i] == terms[i-1] {
			return fmt.Errorf("duplicate vocabulary term %q", terms[i])
		}
	}
	V := len(terms)
	tf := m.terms
	if tf.V != V || len(tf.DF) != V || len(tf.IDF) != V || v != V || tf.NumDocs < 1 {
		return fmt.Errorf("section sizes disagree with the vocabulary of %d terms", V)
	}
	if err := tf.CheckSmooth(); err != nil {
		return fmt.Errorf("term smoothing: %w", err)
	}
	if tf.Proj.In != V || len(tf.Scaled) != V*tf.Proj.Out {
		return fmt.Errorf("term features of width %d do not fit %d terms", tf.Proj.Out, V)
	}
	if m.ctxProj.In != k {
		return fmt.Errorf("context projection reads %d features, LDA has %d topics", m.ctxProj.In, k)
	}
	if !slices.Contains(Contexts, m.info.Context) {
		return fmt.Errorf("unknown context part %q", m.info.Context)
	}
	if len(m.sizes) < 3 || m.sizes[0] != tf.Proj.Out+m.ctxDim()+m.prodDim() || m.sizes[len(m.sizes)-1] != V {
		return fmt.Errorf("network sizes %v do not fit inputs %d+%d+%d and |Γ| = %d", m.sizes, tf.Proj.Out, m.ctxDim(), m.prodDim(), V)
	}
	for _, s := range m.sizes {
		if s <= 0 || s > 1<<20 {
			return fmt.Errorf("network sizes %v out of range", m.sizes)
		}
	}
	want := 0
	for h := 1; h < len(m.sizes); h++ {
		want += m.sizes[h]*m.sizes[h-1] + m.sizes[h]
	}
	for name, p := range m.params {
		if len(p) != want {
			return fmt.Errorf("network %s has %d parameters, sizes need %d", name, len(p), want)
		}
		for _, x := range p {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("network %s has a non-finite parameter", name)
			}
		}
	}
	lda, err := topic.NewLDA(k, v, alpha, beta, phi)
	if err != nil {
		return err
	}
	if len(mass) == k {
		copy(lda.TopicMass, mass)
	}
	m.lda = lda
	return nil
}
