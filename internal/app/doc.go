// Package app holds the use cases of taglens that the command line
// (cmd/taglens) and the web app (server) share: importing a corpus, training
// a model, evaluating models in a setting, priming, and the instance map. Its
// functions take plain values (corpora, splits, configurations, models) and a
// context.Context, and return plain values and errors; reading files or requests, the store, jobs and output
// formats stay with the callers (docs/design.md, Architecture).
package app
