// Package eval measures how well a model captures contextualized term relatedness
// by semantic priming (paper §6.1): the priming protocol (Eq. 8), the extended
// priming protocol (Eq. 9), P@K (Eq. 10), AP and MAP (Eq. 11), precision at the 11
// standard recall levels (Eq. 12) and the AUC of that curve, over the within-corpus,
// cross-corpora, incomplete-context and OOV settings, with trials, standard errors
// and Student's t-tests.
package eval
