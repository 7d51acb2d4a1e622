// Package textlist parses the comma-separated lists that flags, query
// parameters and files of taglens accept ("a, b,,c" → [a b c]).
package textlist

import "strings"

// Split splits a comma-separated list, trimming spaces and dropping empty items.
func Split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
