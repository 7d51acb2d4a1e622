// Package topic fits the topic models that give a document's local context (paper
// §3.2, Eq. 3): LDA by collapsed Gibbs sampling with fold-in of new documents against
// fixed topics and held-out perplexity, and PLSA by EM (a baseline, §6.2.5).
package topic
