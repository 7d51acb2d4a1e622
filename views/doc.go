// Package views holds the templ pages, partials and the view models they render.
package views
