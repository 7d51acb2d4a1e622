package views

import "github.com/a-h/templ"

// View models: plain structs the server fills; components never see ml types.

// Chart is a chart of the page: the id and the height of its element, and
// its typed ECharts options (go-echarts'), which ChartBox encodes as JSON
// with templ.JSONScript and static/js/app.js hands to echarts.init +
// setOption.
type Chart struct {
	ID     string
	Height string // CSS height of the element, e.g. "320px"
	Option any    // the options, encoded by encoding/json
}

// ChartOptionID is the id of the script element that holds the options of
// chart id (static/js/app.js finds the charts of a page by its prefix).
func ChartOptionID(id string) string { return "chart-option-" + id }

// Corpus is one corpus in lists.
type Corpus struct {
	ID, Name, Format, Created string
	Detected                  string // why the parser chose Format; "" when the upload named it
	Docs, Tags                int
	Builtin                   bool
}

// TagCount is a tag and its document frequency.
type TagCount struct {
	Tag   string
	Count int
}

// CorporaPage lists corpora and offers the upload form.
type CorporaPage struct {
	Corpora   []Corpus
	MaxUpload string
}

// CorpusPage is one corpus with the Figure 3/4 charts.
type CorpusPage struct {
	Corpus   Corpus
	MeanTags float64
	// LeftOut says which documents of the file were not kept (without tags,
	// over the tag cap); "" when none.
	LeftOut     string
	Split       string
	TopTags     []TagCount
	TagUse      Chart
	Cardinality Chart
	Models      []Model
}

// Job is a background job's state for the live progress widget.
type Job struct {
	ID, Kind, State, Stage, Message string
	Progress                        float64
	ETA                             float64 // seconds, 0 = unknown
	// ChartID, when set, names the chart that receives training points.
	ChartID string
	// DoneURL is loaded when the job ends successfully ("" = stay).
	DoneURL string
}

// Running reports whether the job can still change.
func (j Job) Running() bool { return j.State == "queued" || j.State == "running" }

// Model is one model in lists.
type Model struct {
	ID, Name, CorpusID, CorpusName, State, Created, Size string
	JobID, JobState                                      string
	Error                                                string // why a failed model cannot be used
}

// Param is a hyper-parameter with its default and explanation.
type Param struct {
	Name, Label, Value, Help, Type string
	// Options, when set, makes the field a choice among these values; the
	// first is the default.
	Options []string
}

// TrainPage offers the training form and lists recent trainings.
type TrainPage struct {
	Corpora  []Corpus
	CorpusID string
	Params   []Param
	Models   []Model
}

// KV is a labelled value.
type KV struct{ Key, Value string }

// ModelPage is one model: parameters, curves, live progress while training.
type ModelPage struct {
	Model  Model
	Params []KV
	Info   []KV
	Curve  Chart
	Job    *Job
	// GroupID and GroupName name the seed group the model belongs to ("":
	// none).
	GroupID, GroupName string
}

// ModelsPage lists models, a page at a time: models First..Last (from 1)
// of Total, on page Page of Pages; Table is the page's ModelTable, rendered.
type ModelsPage struct {
	Table                           templ.Component
	Page, Pages, First, Last, Total int
	// Groups is the newest seed groups (GroupList, rendered), on the first
	// page; nil on the others.
	Groups templ.Component
}

// ExplorerPage is the t-SNE map page.
type ExplorerPage struct {
	Models    []Model
	ModelID   string
	Corpora   []Corpus
	CorpusIDs []string // corpora shown in the map
	Term      string
	Docs      string // comma-separated document ids to overlay
	Variant   string // "ce" or "siamese-ce"
	Color     string // "cluster", "corpus", "topic" (LDA) or "oov"
	Map       Chart
	// MapURL is the API URL the page's script loads the points from.
	MapURL string
	Error  string
	// ContextDoc, when set, shows the context map (the paper's Figure 7) of this
	// document's OOV tag instead of the term map.
	ContextDoc string
	// ContextDocs are documents of the model's corpus with an OOV tag, offered
	// for the context map.
	ContextDocs []ContextDoc
	// View is "space" for the map of the whole space (one point per term),
	// "instances" for the map of every instance, "" for the instances of one
	// term.
	View string
	// Projection of the whole-space map: "tsne" or "pca".
	Projection string
	// SpaceURL is the API URL of the whole-space map; K the neighbours listed.
	SpaceURL string
	K        int
	// InstancesURL is the API URL of the map of every instance (binary).
	InstancesURL string
	// TSNE holds the t-SNE controls of the whole-space map as given
	// (perplexity, iters, seed; empty for the defaults).
	TSNE [3]string
	// Compute are the fields of the "Compute this map" form (POST
	// /explorer): the page's own parameters. Reading a map starts nothing;
	// the page's script shows the form when its map is not computed.
	Compute []KV
	// DemoTraining, when there is no ready model, is the demo model's
	// training while it is queued or running.
	DemoTraining *Job
}

// ContextDoc is a document offered for the context map.
type ContextDoc struct {
	ID   string
	Tags []string
	OOV  []string
}

// Ranked is one entry of a priming list.
type Ranked struct {
	Term     string
	Distance float64
	Hit      bool
}

// TermList is the priming list of one query term.
type TermList struct {
	Term  string
	Typed string // the tag as typed when it matched Term only ignoring case
	OOV   bool
	Items []Ranked
}

// CorpusInUseView refuses to delete a corpus that models use: the message,
// the corpus and every model, with the offer to delete them all.
type CorpusInUseView struct {
	Message string
	Corpus  Corpus
	Models  []Model
}

// OOVTag is a typed tag outside the vocabulary with the closest terms.
type OOVTag struct {
	Tag     string
	Suggest []Suggestion
}

// Suggestion is a vocabulary term offered for an OOV tag; URL primes the
// tag set with the tag replaced by it.
type Suggestion struct{ Term, URL string }

// PrimeResult is the answer of a priming query.
type PrimeResult struct {
	Tags     []string
	Variant  string // "CE" or "Siamese-CE"
	OOV      []OOVTag
	Folded   []KV // typed tag → the vocabulary term it matched ignoring case
	Extended []Ranked
	PerTerm  []TermList
	// Width is β of the model's term widths (0: the paper's distances): the
	// distances shown are divided by (1 + df)^β.
	Width float64
}

// PrimingPage is the priming form and its result.
type PrimingPage struct {
	Models   []Model
	ModelID  string
	CorpusID string
	Tags     string
	K        string // as typed
	Variant  string
	Result   *PrimeResult
	Error    string
	Unknown  []OOVTag // with Error: the tags, none in the vocabulary, and what they may mean
	// DemoTraining, when there is no ready model, is the demo model's
	// training while it is queued or running.
	DemoTraining *Job
}

// Option is a choice in a select or checkbox list.
type Option struct {
	Value, Label string
	Selected     bool
	// Kind, when set, is written as the input's data-kind for the page's
	// script: a model's corpus id, or a baseline's kind ("global", "crbm").
	Kind string
}

// ComparePage is the comparison form and the stored evaluations.
type ComparePage struct {
	// Group is the seed group being compared (the train form's "Seeds"),
	// with its members' states and live progress; SeedTrials checks the
	// seed-trials box.
	Group      *Group
	SeedTrials bool
	Models     []Option
	Baselines  []Option
	Corpora    []Option
	Subsets    []Option
	Protocols  []Option
	Settings   []Option
	Evals      []Eval
}

// Eval is one stored evaluation in lists.
type Eval struct {
	ID, Corpus, Subset, Protocol, Setting, Models, Created, State, JobID string
}

// ModelScore is one row of the results table.
type ModelScore struct {
	Name, PAt1, PAt2, PAt5, MAP, AUC string
	Queries                          int
	Best                             bool
}

// SidePage shows several finished evaluations side by side: each one's
// header, table and MAP and AUC charts in its own column.
type SidePage struct {
	Evals []EvalPage
	// Versus compares the first two evaluations model by model (their MAP
	// per trial, Student's t-test) when they share corpus, subset, protocol
	// and setting: two seed groups of different settings, say. VersusWhy
	// says why there is no such table.
	Versus    []Versus
	VersusWhy string
	Error     string
}

// Versus is one model's MAP in two evaluations and the t-test between them.
type Versus struct {
	Name, A, B, P string
}

// EvalPage is one evaluation's charts and table.
type EvalPage struct {
	Eval    Eval
	Job     *Job
	Scores  []ModelScore
	PValues []KV
	PAtK    Chart
	MAP     Chart
	AUC     Chart
	PR      Chart
	Interp  string
	Notes   []string
	Error   string
}

// HomePage is the landing page.
type HomePage struct {
	Corpora, Models, Evals int
	Jobs                   []Job
	DemoModelID            string
	DemoReady              bool
	// Verdict summarises the demo model's first comparison (nil until done).
	Verdict *Verdict
	// DemoTraining is the demo model's training while it is queued or
	// running (nil otherwise).
	DemoTraining *Job
}

// Verdict says plainly whether the method or a baseline ranked best in one
// evaluation.
type Verdict struct {
	EvalID  string
	Setting string     // a sentence naming the protocol, documents and trials
	Leads   []LeadLine // MAP, then AUC
}

// LeadLine is the better of CE and Siamese-CE against the best other model
// on one metric, as a bold headline and the figures.
type LeadLine struct {
	First            bool
	Headline, Detail string
}
