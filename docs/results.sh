#!/usr/bin/env bash
# docs/results.sh — regenerate docs/results.md, the reproduction of the paper's
# semantic-priming results (Sandouk & Chen §6), from real runs on the shared data.
#
# usage: docs/results.sh [--force] [--only GROUPS] [--jobs N] [--render-only]
#
#   --force        ignore every cached report and retrain every model
#   --only GROUPS  comma-separated groups to run: mtg-jamendo, cal500, corel5k, cross
#                  (default: all; the document is rendered from whatever reports exist)
#   --jobs N       evaluations run at the same time (default 1); training is sequential
#   --render-only  only re-render docs/results.md from docs/results/*.json
#
# What it does (run from anywhere; it works on the repository holding this script):
#   1. builds the binary once: go build -o $WORK/taglens ./cmd/taglens
#   2. trains CE/Siamese-CE with seeds 1, 2, 3 on every corpus that has a report to
#      make (models in $WORK, never in the repository; their --json summaries in
#      docs/results/)
#   3. runs `taglens eval` for every setting, 3 trials (trial i uses the model of
#      seed i and evaluation/baseline seed i), writing docs/results/*.json, at
#      most --jobs at a time, longest first
#   4. renders docs/results.md with `taglens report`, with SVG figures of every
#      report in docs/results/charts/
#
# Caching: a step whose output exists is skipped. Reports are valid for one state of
# the code: the id of the evaluated code (the contents of ml/, cmd/taglens/eval.go,
# cmd/taglens/train.go, go.mod, go.sum) is kept in docs/results/CODE_ID, and a
# different id discards every cached report. Steps timed in an earlier invocation
# keep their recorded time in docs/results/steps.tsv.
#
# Environment: TAGLENS_DATA (default ../shared/data next to the repository, else
# /work/shared/data), TAGLENS_WORK (models, logs, binary; default
# ${TMPDIR:-/tmp}/taglens-results/CODE_ID), TAGLENS_WORKERS (eval goroutines, default 2).
set -euo pipefail

args="$*"
# shellcheck source=docs/script-args.sh
source "$(dirname "${BASH_SOURCE[0]}")/script-args.sh"
parse_args results.sh 2,30 "$@"
if ((train_only)); then
	echo "results.sh: --train-only is an option of docs/suite.sh only" >&2
	exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=docs/results
mkdir -p "$out"

data=${TAGLENS_DATA:-}
if [[ -z $data ]]; then
	for d in "$root/../shared/data" /work/shared/data; do
		if [[ -d $d ]]; then
			data=$(cd "$d" && pwd)
			break
		fi
	done
fi
if [[ -z $data || ! -d $data/mtg-jamendo ]]; then
	echo "results.sh: shared data not found (set TAGLENS_DATA)" >&2
	exit 1
fi

# Training settings of every CE / Siamese-CE model of the reproduction, on top of
# `taglens train`'s defaults: none. The published figures are those of the
# product's defaults (chosen on the development suite's validation subsets).
model_flags=()

code_paths=(ml cmd/taglens/eval.go cmd/taglens/train.go go.mod go.sum)
# Hash of the current contents (tracked and untracked, deleted files left out) and
# of the training settings above.
code_id=$({
	git ls-files -co --exclude-standard -- "${code_paths[@]}" | LC_ALL=C sort |
		while IFS= read -r f; do if [[ -f $f ]]; then sha1sum -- "$f"; fi; done
	echo "model flags: ${model_flags[*]}"
} | sha1sum | cut -c1-12)
commit=$(git rev-parse HEAD)
dirty=""
if [[ -n $(git status --porcelain -- "${code_paths[@]}") ]]; then
	dirty=" (working tree differs from the commit in ${code_paths[*]})"
fi
work=${TAGLENS_WORK:-${TMPDIR:-/tmp}/taglens-results/$code_id}
workers=${TAGLENS_WORKERS:-2}
mkdir -p "$work/models" "$work/logs"

if [[ -f $out/CODE_ID && $(cat "$out/CODE_ID") != "$code_id" && $render_only == 0 ]]; then
	echo "results.sh: the code changed since the cached reports ($(cat "$out/CODE_ID") → $code_id): regenerating everything" >&2
	force=1
fi
if ((force)); then
	rm -f "$out"/*.json "$out"/steps.tsv "$out"/run.tsv
fi
if ((render_only == 0)); then
	echo "$code_id" >"$out/CODE_ID"
fi

# Timings of steps cached from earlier invocations: the last complete one
# (docs/results/steps.tsv) and any interrupted one (its $WORK/steps.PID.tsv).
declare -A prev_secs=()
for f in "$work"/steps.*.tsv "$out/steps.tsv"; do
	[[ -f $f ]] || continue
	while IFS=$'\t' read -r name secs status; do
		[[ $name == \#* || -z $name || $status != ran* ]] && continue
		prev_secs[$name]=$secs
	done <"$f"
done
steps_new=$work/steps.$$.tsv
printf '# step\tseconds\tstatus\n' >"$steps_new"

start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

bin=$work/taglens
failed=0

# record NAME SECONDS STATUS
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$steps_new"; }

# timed NAME CMD...: runs CMD with stderr to $work/logs/NAME.log and records its wall time.
timed() {
	local name=$1
	shift
	local t0 t1
	t0=$(date +%s)
	echo "results.sh: $name" >&2
	if ! "$@" 2>"$work/logs/$name.log"; then
		echo "results.sh: $name failed; last lines of $work/logs/$name.log:" >&2
		tail -n 20 "$work/logs/$name.log" >&2
		return 1
	fi
	t1=$(date +%s)
	record "$name" "$((t1 - t0))" "ran"
}

cached() { # cached NAME FILE: true (and recorded) if FILE exists
	if [[ -e $2 ]]; then
		record "$1" "${prev_secs[$1]:-?}" "cached (earlier invocation)"
		return 0
	fi
	return 1
}

timed build go build -o "$bin" ./cmd/taglens

seeds=(1 2 3)

# models CORPUS: the three model files of CORPUS, comma-separated.
models() {
	local c=$1 s list=""
	for s in "${seeds[@]}"; do list+="${list:+,}$work/models/$c-s$s.model"; done
	echo "$list"
}

# train_all CORPUS [train flags...]: trains the models of seeds 1..3 that are missing.
train_all() {
	local c=$1 s
	shift
	for s in "${seeds[@]}"; do
		local m=$work/models/$c-s$s.model
		[[ -e $m && -e $out/train-$c-s$s.json ]] && continue
		# No time limit: training ends by early stopping or its epoch limits, so
		# the model is the same however loaded the machine is.
		timed "train-$c-s$s" "$bin" train --corpus "$data/$c/docs.tsv" "$@" "${model_flags[@]}" --seed "$s" \
			--out "$m" --json "$out/train-$c-s$s.json"
	done
}

# plan NAME CORPUS TRAINFLAGS -- EVALFLAGS...: queues the evaluation writing
# $out/NAME.json unless it is cached, and marks CORPUS's models as needed.
declare -a plan_names=() plan_corpora=() plan_flags=()
declare -A train_flags=() need_train=()
plan() {
	local name=$1 c=$2
	shift 2
	local -a tflags=()
	while [[ $1 != -- ]]; do
		tflags+=("$1")
		shift
	done
	shift
	cached "eval-$name" "$out/$name.json" && return 0
	train_flags[$c]="${tflags[*]}"
	need_train[$c]=1
	plan_names+=("$name")
	plan_corpora+=("$c")
	local q
	q=$(printf '%q ' "$@")
	plan_flags+=("$q")
}

want() { [[ -z $only || ",$only," == *",$1,"* ]]; }

if ((render_only == 0)); then
	# Listed longest first (the mtg-jamendo training subset dominates), so that
	# --jobs packs well.

	# Within-corpus (§6.3): both protocols, train and test subsets. Under priming,
	# `taglens eval` leaves out the non-contextual baselines, and CRBM outside the
	# training subset, with a note in the report (paper §6.2.5).
	for c in mtg-jamendo corel5k cal500; do
		want "$c" || continue
		tf=(--split "$data/$c/split.tsv")
		if [[ -f $data/$c/oov_tags.txt ]]; then
			tf+=(--oov "$data/$c/oov_tags.txt")
		fi
		for sub in train test; do
			for p in priming extended; do
				plan "$c-$p-$sub" "$c" "${tf[@]}" -- "${tf[@]}" --subset "$sub" --protocol "$p" --baselines all
			done
		done
	done

	# Incomplete local context (§6.5, training subset as in the paper) and the
	# simulated OOV setting (§6.6, the split's oov documents, four OOV variants),
	# on mtg-jamendo.
	if want mtg-jamendo; then
		c=mtg-jamendo
		tf=(--split "$data/$c/split.tsv" --oov "$data/$c/oov_tags.txt")
		for p in extended priming; do
			for band in 0-10 10-30 30-50; do
				plan "$c-$p-train-missing-$band" "$c" "${tf[@]}" -- "${tf[@]}" \
					--subset train --protocol "$p" --missing "$band" --baselines all
			done
		done
		plan "$c-oov" "$c" "${tf[@]}" -- "${tf[@]}" --subset oov
	fi

	# Cross-corpora (§6.4): magnatagatune-top50 ↔ msd-lastfm-top50, models trained
	# on the random 2:1 split of one (taglens train's default split, the same
	# for every seed) and evaluated on the other's documents whose tags are all in the
	# vocabulary; plus the real OOV setting (the other's documents with tags
	# outside the vocabulary).
	if want cross; then
		for pair in magnatagatune-top50:msd-lastfm-top50 msd-lastfm-top50:magnatagatune-top50; do
			a=${pair%%:*}
			b=${pair##*:}
			for p in extended priming; do
				plan "$a-to-$b-$p" "$a" -- --cross "$data/$b/docs.tsv" --subset all --protocol "$p" --baselines all
			done
			plan "$a-to-$b-oov" "$a" -- --cross "$data/$b/docs.tsv" --subset oov
		done
	fi

	# Training, sequential (each run uses both cores).
	for c in mtg-jamendo corel5k cal500 magnatagatune-top50 msd-lastfm-top50; do
		[[ -n ${need_train[$c]:-} ]] || continue
		# shellcheck disable=SC2086 # the flags are paths without spaces
		train_all "$c" ${train_flags[$c]}
	done

	# Evaluations, at most $jobs at a time.
	failed=0
	running=0
	for i in "${!plan_names[@]}"; do
		if ((running >= jobs)); then
			wait -n || failed=1
			running=$((running - 1))
		fi
		name=${plan_names[$i]}
		c=${plan_corpora[$i]}
		eval "set -- ${plan_flags[$i]}"
		timed "eval-$name" "$bin" eval --model "$(models "$c")" --corpus "$data/$c/docs.tsv" \
			--trials 3 --seed 1 --workers "$workers" "$@" --json "$out/$name.json" &
		running=$((running + 1))
	done
	while ((running > 0)); do
		wait -n || failed=1
		running=$((running - 1))
	done
	if ((failed)); then
		echo "results.sh: some evaluations failed (see above); rendering what exists" >&2
	fi
fi

end=$(date +%s)
wall=$((end - start))
# Keep the timings of steps not run in this invocation (e.g. --only).
if [[ -f $out/steps.tsv ]]; then
	while IFS=$'\t' read -r name secs status; do
		[[ $name == \#* || -z $name ]] && continue
		[[ $status == ran ]] && status="ran (earlier invocation)"
		grep -q "^$name	" "$steps_new" || printf '%s\t%s\t%s\n' "$name" "$secs" "$status" >>"$steps_new"
	done <"$out/steps.tsv"
fi
if ((render_only == 0)); then
	cp "$steps_new" "$out/steps.tsv"
fi
total=$(awk -F'\t' '!/^#/ && $2 ~ /^[0-9]+$/ {s += $2} END {print s + 0}' "$out/steps.tsv" 2>/dev/null || echo 0)
hms() { printf '%dh %02dm %02ds' $(($1 / 3600)) $(($1 % 3600 / 60)) $(($1 % 60)); }

if ((render_only == 0)); then
	{
		printf 'generated\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
		printf 'command\tdocs/results.sh %s\n' "$args"
		printf 'commit\t%s%s\n' "$commit" "$dirty"
		printf 'code id (ml/, eval.go, train.go, go.mod, go.sum, model flags)\t%s\n' "$code_id"
		printf 'model flags (taglens train, every corpus and seed)\t%s\n' "${model_flags[*]}"
		printf 'Go\t%s\n' "$(go env GOVERSION)"
		printf 'machine\t%s CPUs (shared with other engineers), load average at start %s, at end %s\n' \
			"$(nproc)" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")"
		printf 'wall time of this invocation\t%s\n' "$(hms "$wall")"
		printf 'sum of the step times (including steps cached from earlier invocations; more than the wall time with --jobs > 1)\t%s\n' "$(hms "$total")"
		printf 'data\t%s\n' "$data"
	} >"$out/run.tsv"
fi

intro=$work/intro.md
cat docs/results/intro.md >"$intro"
if [[ -f docs/results/analysis.md ]]; then
	printf '\n' >>"$intro"
	cat docs/results/analysis.md >>"$intro"
fi
rm -f "$out"/charts/*.svg "$out"/charts/*.png # figures of reports that no longer exist (PNG: older renderings)
"$bin" report --in "$out" --out docs/results.md --intro "$intro" --claims docs/results/claims.tsv \
	--corpora mtg-jamendo,cal500,corel5k,magnatagatune-top50,msd-lastfm-top50 --charts "$out/charts"
echo "results.sh: wrote docs/results.md in $(hms "$wall") (whole generation $(hms "$total"))" >&2
exit "$failed"
