#!/usr/bin/env bash
# Installs a pinned n8n tool into a cache outside the repo, once, and prints its executable's path.
# Usage: ensure-n8n.sh n8n|node-cli
# Reuses a complete install (marked by a file written only after success); concurrent callers wait on a lock.
set -euo pipefail

cache_root="${SVC_CACHE_DIR:-$HOME/.cache/svc}"

case "${1:-}" in
  n8n)
    name="n8n-2.8.4"
    manifest='{"private":true,"dependencies":{"n8n":"2.8.4"},"overrides":{"xlsx":"0.18.5"}}'
    install_flags=()
    bin="node_modules/.bin/n8n"
    ;;
  node-cli)
    name="n8n-node-cli-0.48.3"
    manifest='{"private":true,"dependencies":{"@n8n/node-cli":"0.48.3"}}'
    install_flags=(--ignore-scripts)
    bin="node_modules/.bin/n8n-node"
    ;;
  *)
    echo "usage: $0 n8n|node-cli" >&2
    exit 64
    ;;
esac

dir="$cache_root/$name"
marker="$dir/.install-complete"
mkdir -p "$cache_root"

exec 9>"$cache_root/$name.lock"
flock 9

if [[ ! -f "$marker" ]]; then
  echo "Installing $name into $dir for the connector tests (once; later runs reuse it; a few minutes)..." >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '%s\n' "$manifest" > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "${install_flags[@]}" >&2)
  test -x "$dir/$bin"
  date -u +%FT%TZ > "$marker"
fi

echo "$dir/$bin"
