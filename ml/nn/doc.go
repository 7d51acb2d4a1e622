// Package nn is the neural-network toolkit of the paper's subnetwork (§4.3, Appendix
// A): a tanh multi-layer perceptron on one flat parameter vector, the κ-weighted
// prediction loss of Eq. 5, the Siamese distance loss of Eq. 6, the sparse
// auto-encoder of Appendix A.1 trained with L-BFGS, and mini-batch SGD (A.4), each
// loss with an analytic gradient checked against finite differences.
package nn
