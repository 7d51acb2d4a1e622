#!/usr/bin/env bash
# docs/demotime.sh — how long a first start of `taglens serve` takes to have
# the demo model ready: serves on an empty data folder (under /usr/bin/time -v)
# until GET /api/models says the demo model is ready, prints the wall time to
# ready and the process's CPU time and peak memory, and stops the server.
#
# usage: bash docs/demotime.sh [BINARY] [PORT]   (default: a fresh build, port 18555)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
port=${2:-18555}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
  go build -o "$work/taglens" ./cmd/taglens
  bin=$work/taglens
fi
mkdir "$work/data"
start=$(date +%s.%N)
/usr/bin/time -v "$bin" serve --addr "127.0.0.1:$port" --data "$work/data" >/dev/null 2>"$work/time.txt" &
timer=$!
state=""
until [ "$state" = ready ] || [ "$state" = failed ]; do
  sleep 0.5
  state=$(curl -s "127.0.0.1:$port/api/models" | grep -o '"state":"[a-z]*"' | head -1 | cut -d'"' -f4 || true)
done
end=$(date +%s.%N)
echo "demo model $state after $(echo "$end - $start" | bc) s (wall, from the start of taglens serve)"
kill -INT "$(pgrep -P "$timer")"
wait "$timer" || true
grep -E "User time|System time|Maximum resident" "$work/time.txt"
