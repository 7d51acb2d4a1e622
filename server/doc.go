// Package server is the taglens web app: echo routes, handlers, background jobs with
// server-sent progress, chart builders and the SQLite store.
package server
