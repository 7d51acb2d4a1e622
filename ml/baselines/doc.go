// Package baselines implements the eight models the paper compares against (§6.2.5):
// Random, LSA, PCA, InfoTheo, Skip-gram, LDA, PLSA and CRBM, each behind eval.Model.
package baselines
