#!/usr/bin/env bash
# Leaves a working mediasoup worker binary where mediasoup looks for it by default,
# node_modules/mediasoup/worker/out/Release/mediasoup-worker (run from the root postinstall).
# In order: a good binary already there (or the one MEDIASOUP_WORKER_BIN names) is kept; else the
# cached one is copied in; else mediasoup's prebuilt worker is downloaded (GitHub); else the worker
# is built offline against Debian's system libraries by mediasoup-worker/build.sh (~3 min on 2 cores).
# The result is cached outside the repo in
# ${SVC_CACHE_DIR:-$HOME/.cache/svc}/mediasoup-worker-<version>-<hash of mediasoup-worker/>/, so a
# rerun, also in a fresh clone, takes seconds; concurrent callers wait on a lock.
# A binary is good when, run with an empty environment, it exits with 41 (no MEDIASOUP_VERSION).
# Environment: MEDIASOUP_SKIP_WORKER_PREBUILT_DOWNLOAD=1 skips the download;
# MEDIASOUP_WORKER_PREBUILT_DOWNLOAD_BASE_URL replaces GitHub's release URL (both as mediasoup reads
# them); SVC_SKIP_MEDIASOUP_WORKER=1 skips everything (for installs that never start a room).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(dirname "$script_dir")
recipe_dir="$script_dir/mediasoup-worker"
download_header_timeout_ms=15000
download_total_timeout_ms=120000

say() { printf 'mediasoup-worker: %s\n' "$*" >&2; }

is_good_worker() {
  local status=0
  [[ -f $1 && -x $1 ]] || return 1
  env -i "$1" >/dev/null 2>&1 || status=$?
  [[ $status == 41 ]]
}

if [[ -n ${SVC_SKIP_MEDIASOUP_WORKER:-} ]]; then
  say "skipped (SVC_SKIP_MEDIASOUP_WORKER is set): rooms cannot start without a worker"
  exit 0
fi

if [[ -n ${MEDIASOUP_WORKER_BIN:-} ]]; then
  is_good_worker "$MEDIASOUP_WORKER_BIN" || { say "MEDIASOUP_WORKER_BIN=$MEDIASOUP_WORKER_BIN is not a working worker"; exit 1; }
  say "using MEDIASOUP_WORKER_BIN=$MEDIASOUP_WORKER_BIN"
  exit 0
fi

mediasoup_dir=$(node -e "console.log(require('path').resolve(require.resolve('mediasoup', { paths: [process.argv[1]] }), '../../..'))" "$repo_dir/service")
version=$(node -p "require(process.argv[1]).version" "$mediasoup_dir/package.json")
target="$mediasoup_dir/worker/out/Release/mediasoup-worker"

if is_good_worker "$target"; then
  say "$version already installed at $target"
  exit 0
fi

recipe_hash=$(cd "$recipe_dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
cache_root="${SVC_CACHE_DIR:-$HOME/.cache/svc}"
name="mediasoup-worker-$version-$recipe_hash"
entry="$cache_root/$name"
cached="$entry/mediasoup-worker"
marker="$entry/.complete"

install_into_package() {
  mkdir -p "$(dirname "$target")"
  cp "$cached" "$target.tmp.$$"
  chmod 755 "$target.tmp.$$"
  mv -f "$target.tmp.$$" "$target"
  is_good_worker "$target" || { say "the installed $target does not run"; exit 1; }
  say "$version installed at $target ($(cat "$marker"))"
}

# Downloads mediasoup's prebuilt worker for this platform (the URL mediasoup's own postinstall uses)
# into $1; fails within seconds when GitHub is unreachable.
download_prebuilt() {
  local archive="$1.tgz" platform url
  platform=$(node -p "process.platform + '-' + process.arch")
  [[ $platform == linux-* ]] && platform="$platform-kernel$(uname -r | cut -d. -f1)"
  url="${MEDIASOUP_WORKER_PREBUILT_DOWNLOAD_BASE_URL:-https://github.com/versatica/mediasoup/releases/download}/$version/mediasoup-worker-$version-$platform.tgz"
  node - "$url" "$archive" "$download_header_timeout_ms" "$download_total_timeout_ms" <<'EOF' || return 1
const [url, file, headerTimeoutMs, totalTimeoutMs] = process.argv.slice(2);
const controller = new AbortController();
const headerTimer = setTimeout(() => controller.abort(new Error('no answer')), Number(headerTimeoutMs));
setTimeout(() => controller.abort(new Error('too slow')), Number(totalTimeoutMs)).unref();
fetch(url, { signal: controller.signal })
  .then(async (response) => {
    clearTimeout(headerTimer);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    require('fs').writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  })
  .catch((error) => {
    clearTimeout(headerTimer);
    process.stderr.write(`mediasoup-worker: no prebuilt worker from ${url} (${error.cause?.code ?? error.message})\n`);
    process.exitCode = 1;
  });
EOF
  if ! tar -xzf "$archive" -C "$(dirname "$1")" mediasoup-worker || ! is_good_worker "$1"; then
    say "the prebuilt worker from $url does not run here"
    rm -f "$1" "$archive"
    return 1
  fi
  rm -f "$archive"
  provenance="prebuilt, downloaded from $url"
}

build_offline() {
  local work_dir="$entry.build"
  rm -rf "$work_dir"
  say "building $version offline against Debian's libraries (about 3 minutes on 2 cores)"
  bash "$recipe_dir/build.sh" "$mediasoup_dir" "$work_dir"
  is_good_worker "$work_dir/mediasoup-worker" || { say "the worker built in $work_dir does not run"; exit 1; }
  mv "$work_dir/mediasoup-worker" "$work_dir/build.log" "$entry/"
  rm -rf "$work_dir"
  provenance="built offline from scripts/mediasoup-worker ($recipe_hash)"
}

mkdir -p "$cache_root"
exec 9>"$cache_root/$name.lock"
if ! flock -n 9; then
  say "waiting for another process that is preparing $name"
  flock 9
fi

if [[ ! -f $marker ]] || ! is_good_worker "$cached"; then
  rm -rf "$entry"
  mkdir -p "$entry"
  if [[ -n ${MEDIASOUP_SKIP_WORKER_PREBUILT_DOWNLOAD:-} ]] || ! download_prebuilt "$cached"; then
    build_offline
  fi
  printf '%s\n' "$provenance" >"$marker"
fi

install_into_package
