// Package ce is the paper's model: it turns a corpus into training examples (§4.3.1),
// trains the subnetwork for prediction (stage 1, Eq. 5) and the Siamese architecture
// for distance (stage 2, Eq. 6-7) with automatic early stopping on validation P@2,
// computes concept embeddings CE(τ|δ) for any term in any context, embeds OOV terms
// (§4.4) and reads and writes model files.
package ce
