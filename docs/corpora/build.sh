#!/usr/bin/env bash
# docs/corpora/build.sh — build the suite's corpora that taglens converts
# itself from public packages, in the TSV format of the others.
#
# usage: docs/corpora/build.sh OUT [CORPUS...]
#
# For each CORPUS (default: every folder beside this script), download the
# package its convert.py reads (Debian archive or npm registry), check the
# package's SHA-256, run convert.py (Python 3, standard library only, with the
# shared helpers of tagcorpus.py beside it) with its
# output in OUT/CORPUS, and check that docs.tsv and split.tsv are byte for
# byte the files the suite was measured on. Packages are kept in
# OUT/.packages, so a second run downloads nothing; a corpus whose docs.tsv
# and split.tsv already match is left as it is.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if (($# < 1)); then
	echo "usage: docs/corpora/build.sh OUT [CORPUS...]" >&2
	exit 2
fi
out=$1
shift
mkdir -p "$out/.packages"
out=$(cd "$out" && pwd)

# One line per corpus: name, package URL, package SHA-256, docs.tsv SHA-256,
# split.tsv SHA-256.
table="osm-name-suggestions https://registry.npmjs.org/name-suggestion-index/-/name-suggestion-index-8.0.20260918.tgz 3ee22f0f0a99528ac9c65a57211575defd968e21fd6374e746bfd02e94422121 958fe880a633c5f6bd599d897b300180723c399580e5b5b6050c832b43b49b5f ccf2a6f97eae81785268b290e344c10db2fd06e98d7ee9fe388c76af2571a2fe
edict-glosses https://deb.debian.org/debian/pool/main/e/edict/edict_2021.02.03-1_all.deb f1d50611cd5486d30a4bdd56447bcfa1ee5084da7909340f5da3e1abc0b97b3b fcb40343118ac9dff275784d68a5a8dd5dd80df3ce85f63329bd2cc5d32a5941 4e090dc74a14240dff44e0ac9dc2aa9029dc050f7f0d4e1a6740948729f02a1e"

if (($# == 0)); then
	set -- $(cut -d' ' -f1 <<<"$table")
fi

sum() { sha256sum -- "$1" | cut -d' ' -f1; }

for c in "$@"; do
	line=$(grep "^$c " <<<"$table" || true)
	if [[ -z $line ]]; then
		echo "build.sh: no corpus named $c here (known: $(cut -d' ' -f1 <<<"$table" | tr '\n' ' '))" >&2
		exit 2
	fi
	read -r _ url pkgsum docsum splitsum <<<"$line"
	dir=$out/$c
	if [[ -f $dir/docs.tsv && -f $dir/split.tsv && $(sum "$dir/docs.tsv") == "$docsum" &&
		$(sum "$dir/split.tsv") == "$splitsum" ]]; then
		echo "build.sh: $c is built in $dir" >&2
		continue
	fi
	pkg=$out/.packages/${url##*/}
	if [[ ! -f $pkg || $(sum "$pkg") != "$pkgsum" ]]; then
		echo "build.sh: downloading $url" >&2
		curl -fsSL --retry 3 -o "$pkg.part" "$url"
		mv "$pkg.part" "$pkg"
	fi
	if [[ $(sum "$pkg") != "$pkgsum" ]]; then
		echo "build.sh: $pkg has SHA-256 $(sum "$pkg"), not $pkgsum: refusing to convert it" >&2
		exit 1
	fi
	echo "build.sh: converting $c into $dir" >&2
	mkdir -p "$out/.converters/$c"
	cp "$here/$c/convert.py" "$here/tagcorpus.py" "$out/.converters/$c/"
	(cd "$out" && CORPORA_OUT=$out python3 "$out/.converters/$c/convert.py" "$pkg" >/dev/null)
	for f in docs split; do
		want=docsum
		[[ $f == split ]] && want=splitsum
		if [[ $(sum "$dir/$f.tsv") != "${!want}" ]]; then
			echo "build.sh: $dir/$f.tsv differs from the file the suite was measured on (SHA-256 ${!want})" >&2
			exit 1
		fi
	done
	cp "$here/$c/convert.py" "$here/tagcorpus.py" "$dir/"
done
