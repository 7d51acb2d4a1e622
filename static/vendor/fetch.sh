#!/usr/bin/env bash
# Fetches the browser libraries served from the binary, at pinned versions, from the npm
# registry, checks each tarball's sha256 and copies the files (unmodified) with their licenses
# into static/vendor/. The results are committed; run this only to change a version.
#   bash static/vendor/fetch.sh          # fetch and verify
#   bash static/vendor/fetch.sh --check  # re-fetch and fail if the committed files differ
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# package@version  sha256 of the npm tarball, then pairs: file in the tarball  name under static/vendor
pins=(
  "echarts@5.6.0 e1b82487dd7f8d9f0438eec1f1433051148e0095ac7a15d4db890afda45cf610 dist/echarts.min.js echarts.min.js LICENSE echarts.LICENSE"
  "htmx.org@2.0.11 165a2655073e9e6e55e307a7c74e8ebcdb76afb7701f9c16cfd106a13add408e dist/htmx.min.js htmx.min.js LICENSE htmx.LICENSE"
  "htmx-ext-sse@2.2.4 90b46f5ab915ba2f64e6348448c8dba509277a47e15c125ffb65754eb4f6b5dc dist/sse.js htmx-ext-sse.js LICENSE htmx-ext-sse.LICENSE"
)
check=0
[ "${1:-}" = "--check" ] && check=1
for line in "${pins[@]}"; do
  read -r pkg sum files <<<"$line"
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
  tgz=$(ls "$tmp"/*.tgz)
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  if [ "$got" != "$sum" ]; then
    echo "fetch.sh: $pkg: sha256 $got, want $sum" >&2
    exit 1
  fi
  mkdir -p "$tmp/x"
  tar -xzf "$tgz" -C "$tmp/x"
  set -- $files
  while [ $# -ge 2 ]; do
    if [ $check = 1 ]; then
      cmp "$tmp/x/package/$1" "$here/$2"
    else
      cp "$tmp/x/package/$1" "$here/$2"
    fi
    shift 2
  done
  rm -rf "$tmp/x" "$tgz"
  echo "$pkg ok"
done
