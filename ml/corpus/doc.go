// Package corpus reads, validates and describes tag corpora: documents that are sets
// of descriptive terms (music tags, image labels). It owns the vocabulary, the
// train/valid/test/oov splits, the reservation of simulated out-of-vocabulary tags
// (paper §5.2) and the statistics of the paper's Figures 3-4. It uses the standard
// library only.
package corpus
