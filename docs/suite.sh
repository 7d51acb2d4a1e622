#!/usr/bin/env bash
# docs/suite.sh — regenerate docs/suite.md: what `taglens train` with no flags
# gives on each corpus of the development suite, against every baseline.
#
# usage: docs/suite.sh [--force] [--only CORPORA] [--jobs N] [--train-only] [--render-only]
#
#   --force        ignore every cached result and retrain every model
#   --only CORPORA comma-separated corpora to run (default: the whole suite; the
#                  document is rendered from whatever results exist)
#   --jobs N       evaluations run at the same time (default 1). Trainings
#                  always run one at a time, with the machine to themselves,
#                  so that their times are those of `taglens train` alone
#   --train-only   only the trainings (their validation figures are in
#                  docs/suite/train-*.json); a later run without it goes on
#                  with the evaluations
#   --render-only  only re-render docs/suite.md from docs/suite/*
#
# First, for every corpus, `taglens train` with the defaults (no flag but
# --seed) for seeds 1, 2, 3, one training after the other, each timed with its
# peak memory (/usr/bin/time); then, --jobs at a time, `taglens eval --subset
# test --baselines all --trials 3` under the extended, the priming and the
# completion protocols (trial i uses the model of seed i and baseline seed i;
# completion on a seeded sample of 2,500 test documents per trial where there
# are more); then `taglens suite`
# renders the table. Corpora with a split.tsv use it; the
# others use the random split `taglens train` draws (--split-seed, by default
# the same for every training seed, so the three models share a vocabulary).
#
# Caching: a step whose output exists is skipped; results are valid for one
# state of the code (ml/, internal/, cmd/taglens, go.mod, go.sum: the code a
# training, an evaluation and the rendering run), whose id is kept in
# docs/suite/CODE_ID: a different id discards them.
#
# Environment: TAGLENS_DATA (default ../shared/data next to the repository),
# TAGLENS_CORPORA (where the corpora of docs/corpora are built when the data
# folder lacks them: docs/corpora/build.sh downloads their packages),
# TAGLENS_WORK (models, logs, binary; default ${TMPDIR:-/tmp}/taglens-suite/CODE_ID).
set -euo pipefail

# shellcheck source=docs/script-args.sh
source "$(dirname "${BASH_SOURCE[0]}")/script-args.sh"
parse_args suite.sh 2,30 "$@"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=docs/suite
mkdir -p "$out"

data=${TAGLENS_DATA:-$root/../shared/data}
if [[ ! -d $data/cal500 ]]; then
	echo "suite.sh: the development suite's data is not at $data (set TAGLENS_DATA)" >&2
	exit 1
fi
data=$(cd "$data" && pwd)

suite=(cal500 corel5k mtg-jamendo magnatagatune-top50 msd-lastfm-top50 lastfm-hetrec
	whats-cooking steam-tags citeulike-a github-topics movielens-small
	osm-name-suggestions edict-glosses)
if [[ -n $only ]]; then
	IFS=, read -r -a suite <<<"$only"
fi
seeds=(1 2 3)

# Where each corpus is: in the data folder, or, for the corpora converted here
# from public packages (docs/corpora), built on first use into
# TAGLENS_CORPORA (default ${TMPDIR:-/tmp}/taglens-corpora).
built=${TAGLENS_CORPORA:-${TMPDIR:-/tmp}/taglens-corpora}
declare -A dir
if ((render_only == 0)); then
	for c in "${suite[@]}"; do
		if [[ -f $data/$c/docs.tsv ]]; then
			dir[$c]=$data/$c
		elif [[ -f docs/corpora/$c/convert.py ]]; then
			if docs/corpora/build.sh "$built" "$c"; then
				dir[$c]=$built/$c
			else
				echo "suite.sh: building $c failed (docs/corpora/build.sh)" >&2
			fi
		fi
	done
fi
completion_sample=2500 # test documents per trial under completion (eval --sample)

code_paths=(ml internal cmd/taglens go.mod go.sum)
code_id=$(git ls-files -co --exclude-standard -- "${code_paths[@]}" | LC_ALL=C sort |
	while IFS= read -r f; do if [[ -f $f ]]; then sha1sum -- "$f"; fi; done | sha1sum | cut -c1-12)
work=${TAGLENS_WORK:-${TMPDIR:-/tmp}/taglens-suite/$code_id}
mkdir -p "$work/models" "$work/logs"
bin=$work/taglens

if ((render_only == 0)); then
	if [[ -f $out/CODE_ID && $(cat "$out/CODE_ID") != "$code_id" ]]; then
		echo "suite.sh: the code changed since the cached results ($(cat "$out/CODE_ID") → $code_id): regenerating everything" >&2
		force=1
	fi
	if ((force)); then
		rm -f "$out"/*.json "$out"/*.time
	fi
	echo "$code_id" >"$out/CODE_ID"
	git rev-parse HEAD >"$out/COMMIT"
fi
go build -o "$bin" ./cmd/taglens

# split_flags CORPUS: --split for corpora that ship one.
split_flags() {
	if [[ -f ${dir[$1]}/split.tsv ]]; then
		echo "--split ${dir[$1]}/split.tsv"
	fi
}

# train_one CORPUS SEED: the default model of CORPUS with SEED, timed.
train_one() {
	local c=$1 s=$2
	local m=$work/models/$c-s$s.tlm
	[[ -s $out/train-$c-s$s.json && -s $m ]] && return 0
	echo "suite.sh: train $c seed $s" >&2
	# shellcheck disable=SC2046
	if ! /usr/bin/time -f '%e\t%M\t%U\t%S' -o "$out/train-$c-s$s.time" \
		"$bin" train --corpus "${dir[$c]}/docs.tsv" $(split_flags "$c") --seed "$s" \
		--out "$m" --json "$out/train-$c-s$s.json" 2>"$work/logs/train-$c-s$s.log"; then
		echo "suite.sh: training $c seed $s failed; see $work/logs/train-$c-s$s.log" >&2
		rm -f "$out/train-$c-s$s.json"
		return 1
	fi
}

# eval_one CORPUS PROTOCOL: the three trials of PROTOCOL on the test documents.
eval_one() {
	local c=$1 p=$2
	[[ -s $out/$c.$p.json ]] && return 0
	local models="" s sample=()
	for s in "${seeds[@]}"; do models+="${models:+,}$work/models/$c-s$s.tlm"; done
	# Completion ranks the vocabulary once for every term of a document: on the
	# larger test subsets a seeded sample of documents per trial (the report
	# says so) keeps it within the time of the other protocols.
	if [[ $p == completion ]]; then sample=(--sample "$completion_sample"); fi
	echo "suite.sh: eval $c $p" >&2
	# shellcheck disable=SC2046
	if ! /usr/bin/time -f '%e\t%M\t%U\t%S' -o "$out/eval-$c-$p.time" \
		"$bin" eval --model "$models" --corpus "${dir[$c]}/docs.tsv" $(split_flags "$c") \
		--subset test --protocol "$p" --baselines all --trials 3 "${sample[@]}" \
		--json "$out/$c.$p.json" 2>"$work/logs/eval-$c-$p.log"; then
		echo "suite.sh: evaluating $c ($p) failed; see $work/logs/eval-$c-$p.log" >&2
		rm -f "$out/$c.$p.json"
		return 1
	fi
}

# corpus_eval CORPUS: the evaluations of one corpus, in order.
corpus_eval() {
	local c=$1 p
	for p in extended priming completion; do eval_one "$c" "$p" || return 1; done
}

failed=0
if ((render_only == 0)); then
	start=$(date +%s)
	# Trainings one at a time: their wall times are the machine's own.
	trained=()
	for c in "${suite[@]}"; do
		if [[ -z ${dir[$c]:-} ]]; then
			echo "suite.sh: $c is not in $data: left out of this run" >&2
			continue
		fi
		ok=1
		for s in "${seeds[@]}"; do train_one "$c" "$s" || { ok=0; failed=1; break; }; done
		((ok)) && trained+=("$c")
	done
	if ((train_only)); then
		echo "suite.sh: trainings done (--train-only); run again without it for the evaluations" >&2
		exit $failed
	fi
	running=0
	for c in "${trained[@]}"; do
		corpus_eval "$c" &
		running=$((running + 1))
		if ((running >= jobs)); then
			wait -n || failed=1
			running=$((running - 1))
		fi
	done
	while ((running > 0)); do
		wait -n || failed=1
		running=$((running - 1))
	done
	printf 'code id\t%s\ncommit\t%s\nwall seconds\t%s\njobs\t%s\nprocessors\t%s\n' \
		"$code_id" "$(git rev-parse --short HEAD)" "$(($(date +%s) - start))" "$jobs" "$(nproc)" >"$out/run.tsv"
fi

"$bin" suite --in "$out" --out docs/suite.md
echo "suite.sh: wrote docs/suite.md" >&2
exit $failed
