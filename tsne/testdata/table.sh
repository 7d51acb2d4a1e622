#!/bin/sh
# Reproduces the measurement table of docs/tsne.md: Gaussian blobs (12 centres
# in [-10,10]^50, std 2.5, equal cluster sizes, seed 1), perplexity 30, 1000
# iterations, default options (method and neighbour search "auto"). One
# markdown row per size: wall time of the embedding, KL, 10-NN preservation
# (all points as queries up to 20,000, else 5,000 sampled), peak RSS of the
# whole process (input generation and measurement included) from
# /usr/bin/time -v. Needs Go and GNU time only.
#
#   sh tsne/testdata/table.sh 5000 20000 70000
#   EXTRA="-knn exact" sh tsne/testdata/table.sh 70000   # force the exact kNN
set -eu
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/blobsbench
go build -o "$bin" ./tsne/testdata/blobsbench
echo "| n | time (s) | KL | 10-NN preservation | queries | neighbours | peak RSS (MB) | CPU (s) |"
echo "|---|---|---|---|---|---|---|---|"
[ $# -eq 0 ] && set -- 5000 20000 70000
for n in "$@"; do
	q=${QUERIES:-20000}
	[ "$n" -gt 20000 ] && q=${QUERIES_LARGE:-5000}
	log=$(mktemp)
	# shellcheck disable=SC2086
	json=$(/usr/bin/time -v "$bin" -n "$n" -queries "$q" ${EXTRA:-} 2>"$log")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$log")
	cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.1f", u+s}' "$log")
	echo "$json" | awk -v rss="$rss" -v cpu="$cpu" '{
		match($0, /"seconds":[0-9.]+/); t = substr($0, RSTART+10, RLENGTH-10)
		match($0, /"kl":[0-9.]+/); kl = substr($0, RSTART+5, RLENGTH-5)
		match($0, /"nn_preservation":[0-9.]+/); p = substr($0, RSTART+18, RLENGTH-18)
		match($0, /"queries":[0-9]+/); q = substr($0, RSTART+10, RLENGTH-10)
		match($0, /"neighbours":"[a-z]+"/); nb = substr($0, RSTART+14, RLENGTH-15)
		match($0, /"n":[0-9]+/); n = substr($0, RSTART+4, RLENGTH-4)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", n, t, kl, p, q, nb, rss, cpu
	}'
	rm -f "$log"
done
