// Package tsne embeds high-dimensional points in two dimensions with t-SNE (van der
// Maaten & Hinton 2008): exact gradients for small inputs and accelerated
// approximations for large ones, deterministic for a seed. It depends on gonum only.
package tsne
