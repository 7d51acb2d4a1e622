#!/usr/bin/env bash
# Every file and Go name that docs/design.md names in backquotes must exist:
#   - a path (it holds a slash, or ends in .go .md .sh .js .s .templ .css): a
#     tracked file or folder, at the root or as the tail of a tracked path
#     ("ce/screen.go" is ml/ce/screen.go);
#   - a Go name (it holds a capital letter or a dot, like evalDocuments,
#     app.Train, compare.Plan.Concurrent or ml/ce.Train): its last part is
#     declared in the non-test Go code (a func, method, type, const, var, field
#     or interface method), and a package path before it is a folder; names of
#     tests (Test…, Benchmark…, Example…, Fuzz…) in the test code.
# Inside fenced code blocks (the diagrams) the same holds for the words that
# name a .go file or a package-qualified Go name (app.Train).
# Plain lower-case words (train, best, lsa) are subcommands, flag values and
# model names, and data files (split.tsv) live outside the repository: neither
# is checked.
# Usage: bash .ci/docnames.sh [FILE.md …]   (default docs/design.md)
set -euo pipefail
cd "$(dirname "$0")/.."

# Backquoted words that look like Go names or paths but are neither, with why.
exceptions=(
	"float64(a*b)"    # an expression, not a name
	"GOMAXPROCS"      # the runtime's environment variable
	"GOAMD64"         # the Go toolchain's environment variable
	"context.Context" # the standard library's
	"To"              # the suffix of a naming convention, not a name
)

docs=("$@")
[[ ${#docs[@]} -gt 0 ]] || docs=(docs/design.md)

mapfile -t tracked < <(git ls-files)
mapfile -t gofiles < <(git ls-files '*.go' ':!:*_test.go')
mapfile -t testfiles < <(git ls-files '*_test.go')
declare -A pkgfiles # package folder's name → its non-test Go files
for f in "${gofiles[@]}"; do
	d=$(basename "$(dirname "$f")")
	pkgfiles[$d]+="$f "
done

is_exception() {
	local e
	for e in "${exceptions[@]}"; do
		[[ $1 == "$e" ]] && return 0
	done
	return 1
}

path_exists() {
	local p=${1%/} f
	[[ -e $p ]] && return 0
	for f in "${tracked[@]}"; do
		[[ $f == */"$p" || $f == */"$p"/* ]] && return 0
	done
	return 1
}

# declared NAME FILES…: is NAME declared in one of FILES?
declared() {
	local n=$1
	shift
	local e='([^A-Za-z0-9_]|$)' id='[A-Za-z_][A-Za-z0-9_]*' s='[[:space:]]'
	grep -qE "^func ($s*\([^)]*\)$s*)?$n[[(]|^(type|const|var)$s+$n$e|^$s+($id$s*,$s*)*$n($s*,$s*$id)*$s+[^=:[:space:]]|^$s+$n$s*=[^=]|^$s+$n\(" "$@"
}

# words DOC: the backquoted words of DOC, and the .go files and
# package-qualified Go names inside its fenced code blocks.
words() {
	grep -oE '`[^`]+`' "$1" | tr -d '`'
	awk '/^```/ { fence = !fence; next } fence' "$1" |
		grep -oE '[A-Za-z0-9_./-]+\.go\b|\b[a-z][a-z0-9]*(/[a-z0-9]+)*\.[A-Z][A-Za-z0-9_]*(\.[A-Z][A-Za-z0-9_]*)*' || true
}

status=0
for doc in "${docs[@]}"; do
	while IFS= read -r word; do
		is_exception "$word" && continue
		case $word in
		/* | ../* | *' '* | *'...'* | *'…'*) continue ;; # routes, outside the repository, phrases, patterns
		*.tsv | *.txt | *.json | *.jsonl | *.csv | *.arff | *.gz | *.tlm | *.svg | *.png | *.zip) continue ;; # data files
		esac
		pkg=
		if [[ ! $word =~ \.(go|md|sh|js|s|templ|css)$ && $word =~ ^([a-z0-9_]+(/[a-z0-9_]+)*)/([a-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_.]*)$ ]]; then
			pkg=${BASH_REMATCH[1]}/${BASH_REMATCH[3]} # ml/ce.Train: the folder ml/ce and the name Train
			word=${BASH_REMATCH[3]}.${BASH_REMATCH[4]}
			path_exists "$pkg" || {
				echo "$doc: \`$pkg\`: no such package folder" >&2
				status=1
			}
		fi
		if [[ $word =~ ^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?$ && ($word == */* || $word =~ \.(go|md|sh|js|s|templ|css)$) ]]; then
			path_exists "$word" || {
				echo "$doc: \`$word\`: no such file or folder" >&2
				status=1
			}
		elif [[ $word =~ ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\(\))?$ && $word =~ [A-Z.] ]]; then
			name=${word%()}
			name=${name##*.}
			if [[ $name =~ ^(Test|Benchmark|Example|Fuzz)([A-Z0-9_]|$) ]]; then
				declared "$name" "${testfiles[@]}" || {
					echo "$doc: \`$word\`: no test $name in the test code" >&2
					status=1
				}
			else
				# A first part that names a package (app.Train, ce.Model.Prime)
				# narrows the search to that package's folder(s).
				first=${word%%.*}
				files=("${gofiles[@]}")
				if [[ $word == *.* && -n ${pkgfiles[$first]:-} ]]; then
					read -r -a files <<<"${pkgfiles[$first]}"
				fi
				declared "$name" "${files[@]}" || {
					echo "$doc: \`$word\`: $name is declared nowhere in the non-test Go code${pkgfiles[$first]:+ of package $first}" >&2
					status=1
				}
			fi
		fi
	done < <(words "$doc" | sort -u)
done
exit "$status"
