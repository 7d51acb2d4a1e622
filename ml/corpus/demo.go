package corpus

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The built-in demo corpus: taglens's own synthetic tag corpus, used by `taglens
// serve` on its first start and by tests. Documents are drawn from eight latent
// concepts (four music genres, four photo scenes); each concept has its own pool of
// twelve tags used with Zipf-like popularity. Four POLYSEMOUS tags are planted, each
// shared by two unrelated concepts, so that its meaning in a document is given only
// by the other tags:
//
//	guitar: acoustic folk (sense 0)   vs electric rock (sense 1)
//	house:  house & home (0)          vs club electronic (1)
//	bass:   lake & wildlife, the fish vs smooth jazz, the instrument (1)
//	crane:  lake & wildlife, the bird vs construction site, the machine (1)
//
// Eight generic tags ("favorite", "beautiful", …) are sprinkled over all concepts
// as noise. Every document holds at least two tags of its own concept's pool
// besides any polysemous or generic tag, so a contextual model can tell the senses
// apart.

// DemoSeed is the seed of the demo corpus that `taglens serve` loads.
const DemoSeed uint64 = 1

// DemoOOVTags are the tags DemoSplit reserves as simulated out-of-vocabulary terms
// (paper §5.2): ordinary, moderately rare tags of one concept each.
var DemoOOVTags = []string{"cello", "harmonica"}

type demoConcept struct {
	name   string
	weight float64  // share of the documents
	pool   []string // own tags, most popular first
}

var demoConcepts = []demoConcept{
	{"acoustic folk", 0.18, []string{"folk", "acoustic", "singer-songwriter", "mellow", "banjo", "harmonica", "storytelling", "americana", "fingerpicking", "campfire", "ballad", "country"}},
	{"electric rock", 0.18, []string{"rock", "distortion", "drums", "loud", "riff", "energetic", "grunge", "punk", "headbanging", "stadium", "power chords", "hard rock"}},
	{"house & home", 0.12, []string{"building", "window", "roof", "door", "garden", "brick", "chimney", "porch", "suburb", "fence", "front yard", "real estate"}},
	{"club electronic", 0.14, []string{"electronic", "dance", "club", "techno", "synth", "dj", "four-on-the-floor", "rave", "deep", "remix", "edm", "ibiza"}},
	{"lake & wildlife", 0.12, []string{"lake", "water", "bird", "reeds", "fishing", "boat", "heron", "wetland", "sunrise", "fish", "marsh", "pond"}},
	{"smooth jazz", 0.10, []string{"jazz", "saxophone", "swing", "trumpet", "improvisation", "piano trio", "bebop", "lounge", "big band", "brushes", "smoky", "late night"}},
	{"classical orchestra", 0.09, []string{"classical", "orchestra", "violin", "strings", "symphony", "cello", "baroque", "conductor", "opera", "harpsichord", "chamber", "concerto"}},
	{"construction site", 0.07, []string{"construction", "scaffolding", "excavator", "concrete", "workers", "steel", "hard hat", "skyscraper", "site", "bulldozer", "girder", "cement"}},
}

// demoPolysemous: tag → the concepts of sense 0 and sense 1.
var demoPolysemous = []struct {
	tag    string
	senses [2]int
}{
	{"guitar", [2]int{0, 1}},
	{"house", [2]int{2, 3}},
	{"bass", [2]int{4, 5}},
	{"crane", [2]int{4, 7}},
}

var demoGeneric = []string{"favorite", "beautiful", "classic", "nice", "cool", "amazing", "vintage", "summer"}

const (
	demoDocs      = 2400
	demoPolyProb  = 0.4 // chance that a document of a host concept holds the polysemous tag
	demoNoiseProb = 0.2 // chance of one generic tag
	demoZipfPower = 1.0 // tag popularity within a pool ∝ 1/(rank+1)^power
	demoMinOwn    = 2   // own-pool tags in every document
)

// demoCardinality[k] is the weight of documents with 3+k tags (3..7).
var demoCardinality = []float64{0.28, 0.30, 0.22, 0.12, 0.08}

// DemoTruth is the ground truth of a demo corpus.
type DemoTruth struct {
	Concepts   []string // concept names
	DocConcept []int    // concept of each document (index into Concepts)
	// Polysemous lists the planted polysemous tags.
	Polysemous []string
	// Sense[tag][i] is the sense (0 or 1) of the polysemous tag in document i, or -1
	// when document i does not hold it.
	Sense map[string][]int
	// SenseConcept[tag] gives the concept of sense 0 and of sense 1.
	SenseConcept map[string][2]int
}

// Demo generates the demo corpus for a seed: 2,400 documents of 3 to 7 tags over
// 108 tags (8 concepts × 12, 4 polysemous, 8 generic), and its ground truth. The
// same seed gives the same corpus. Each polysemous tag appears in about 70-180
// documents per sense (the fewest: "crane" on construction sites, ≈ 67).
func Demo(seed uint64) (*Corpus, *DemoTruth) {
	rng := rand.New(rand.NewPCG(seed, 0x6465_6d6f_636f_7270))
	conceptW := make([]float64, len(demoConcepts))
	for i, c := range demoConcepts {
		conceptW[i] = c.weight
	}
	zipf := make([]float64, len(demoConcepts[0].pool))
	for r := range zipf {
		zipf[r] = 1 / math.Pow(float64(r+1), demoZipfPower)
	}
	genericW := make([]float64, len(demoGeneric))
	for r := range genericW {
		genericW[r] = 1 / float64(r+1)
	}
	hosted := make([][]int, len(demoConcepts)) // concept → indices into demoPolysemous
	for p, pd := range demoPolysemous {
		for _, c := range pd.senses {
			hosted[c] = append(hosted[c], p)
		}
	}

	c := &Corpus{Name: "demo", Docs: make([]Document, demoDocs)}
	truth := &DemoTruth{
		DocConcept:   make([]int, demoDocs),
		Sense:        make(map[string][]int),
		SenseConcept: make(map[string][2]int),
	}
	for _, cc := range demoConcepts {
		truth.Concepts = append(truth.Concepts, cc.name)
	}
	for _, pd := range demoPolysemous {
		truth.Polysemous = append(truth.Polysemous, pd.tag)
		truth.SenseConcept[pd.tag] = pd.senses
		s := make([]int, demoDocs)
		for i := range s {
			s[i] = -1
		}
		truth.Sense[pd.tag] = s
	}

	for i := range c.Docs {
		k := sample(rng, conceptW)
		truth.DocConcept[i] = k
		n := 3 + sample(rng, demoCardinality)
		var tags []string
		for _, p := range hosted[k] {
			if rng.Float64() < demoPolyProb {
				pd := demoPolysemous[p]
				tags = append(tags, pd.tag)
				sense := 0
				if pd.senses[1] == k {
					sense = 1
				}
				truth.Sense[pd.tag][i] = sense
			}
		}
		if rng.Float64() < demoNoiseProb {
			tags = append(tags, demoGeneric[sample(rng, genericW)])
		}
		own := max(demoMinOwn, n-len(tags))
		w := slices.Clone(zipf)
		for range own {
			r := sample(rng, w)
			w[r] = 0 // without replacement
			tags = append(tags, demoConcepts[k].pool[r])
		}
		rng.Shuffle(len(tags), func(a, b int) { tags[a], tags[b] = tags[b], tags[a] })
		c.Docs[i] = Document{ID: fmt.Sprintf("demo-%04d", i+1), Tags: tags}
	}
	return c, truth
}

// DemoSplit is the fixed split of a demo corpus: documents holding one of
// DemoOOVTags go to OOV, the rest are split 2:1 with the default validation size
// (RandomSplit with seed 1).
func DemoSplit(c *Corpus) Split { return RandomSplit(c, DemoOOVTags, 0, 1) }

// sample draws an index with probability proportional to w (not all zero).
func sample(rng *rand.Rand, w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	u := rng.Float64() * total
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	for i := len(w) - 1; i >= 0; i-- { // rounding: the last positive weight
		if w[i] > 0 {
			return i
		}
	}
	panic("corpus: sample: all weights are zero")
}
