package app

import "github.com/taglens/taglens/ml/ce"

// The explorer's maps can colour their points by LDA topic: the topic of the
// model's own LDA (ml/ce's local context, design.md decision 3) that weighs
// most, for a document in its context and for a term over the topics.

// NumTopics is the number of topics of the model's LDA.
func NumTopics(m *ce.Model) int { return m.Topics().NumTopics() }

// DocumentTopic returns the topic with the largest share of the local context
// l(δ) of a document with these tags (its in-vocabulary tags, folded in as
// the model folds in every context), or -1 when none of its tags is in the
// model's vocabulary. Ties go to the lower topic.
func DocumentTopic(m *ce.Model, tags []string) int {
	v := m.Vocabulary()
	seen := map[int]bool{}
	var ids []int
	for _, t := range tags {
		if id, ok := v.ID(t); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return -1
	}
	lda := m.Topics()
	p := make([]float64, lda.NumTopics())
	lda.InferVBTo(p, ids)
	return argmax(p)
}

// TermTopic returns the topic under which a vocabulary term is most likely,
// argmax_k p(τ|φ_k) (the term's most probable topic under a uniform prior
// over topics), or -1 for a term not in the model's vocabulary. Ties go to
// the lower topic.
func TermTopic(m *ce.Model, term string) int {
	id, ok := m.Vocabulary().ID(term)
	if !ok {
		return -1
	}
	return argmax(m.Topics().TermTopics(id))
}

func argmax(p []float64) int {
	best := -1
	for k, x := range p {
		if best < 0 || x > p[best] {
			best = k
		}
	}
	return best
}
