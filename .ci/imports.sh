#!/usr/bin/env bash
# Import direction (docs/design.md): ml/..., tsne and internal/app never import the web side; the store
# (server/store) imports neither the web side nor the rest of server, the jobs (server/jobs) only the
# store of it; tsne never imports ml; internal/linalg (shared by ml and tsne) imports nothing of taglens.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
bad=$(go list -deps ./ml/... ./tsne/... | grep -E "labstack/echo|a-h/templ|go-echarts|^$mod/(server|views|static)(/|\$)" || true)
if [ -n "$bad" ]; then
  echo "ml/ or tsne/ imports the web side:" >&2
  echo "$bad" >&2
  exit 1
fi
bad=$(go list -deps ./internal/app/... | grep -E "labstack/echo|a-h/templ|go-echarts|^$mod/(server|views|static|cmd)(/|\$)" || true)
if [ -n "$bad" ]; then
  echo "internal/app imports the web side or the command:" >&2
  echo "$bad" >&2
  exit 1
fi
bad=$(go list -deps ./server/store/... | grep -E "labstack/echo|a-h/templ|go-echarts|^$mod/(server|views|static|cmd)(/|\$)" |
  grep -vE "^$mod/server/store(/|\$)" || true)
if [ -n "$bad" ]; then
  echo "server/store imports the web side, the command or the rest of server:" >&2
  echo "$bad" >&2
  exit 1
fi
bad=$(go list -deps ./server/jobs/... | grep -E "labstack/echo|a-h/templ|go-echarts|^$mod/(server|views|static|cmd)(/|\$)" |
  grep -vE "^$mod/server/(jobs|store)(/|\$)" || true)
if [ -n "$bad" ]; then
  echo "server/jobs imports the web side, the command or server's handlers:" >&2
  echo "$bad" >&2
  exit 1
fi
bad=$(go list -deps ./tsne/... | grep -E "^$mod/ml(/|\$)" || true)
if [ -n "$bad" ]; then
  echo "tsne imports ml:" >&2
  echo "$bad" >&2
  exit 1
fi
bad=$(go list -deps ./internal/linalg/... | grep -E "^$mod(/|\$)" | grep -vE "^$mod/internal/linalg(/|\$)" || true)
if [ -n "$bad" ]; then
  echo "internal/linalg imports a package of taglens:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "imports ok"
