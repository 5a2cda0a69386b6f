#!/usr/bin/env bash
# Builds mediasoup's C++ worker offline against Debian 12's system libraries (no GitHub, wrapdb or
# PyPI): mediasoup's subproject wraps are replaced by this folder's subprojects/, which wrap the
# system libraries, and this folder's patches/ are applied. Installs the Debian packages it needs
# when run as root. Progress goes to stderr, everything else to <work dir>/build.log.
# Usage: build.sh <mediasoup package dir> <work dir>   -> <work dir>/mediasoup-worker
set -euo pipefail

recipe_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mediasoup_dir=$(cd "$1" && pwd)
work_dir=$2
build_packages=(g++ make pkg-config meson ninja-build patch libssl-dev libuv1-dev libsrtp2-dev
  libusrsctp-dev libabsl-dev libflatbuffers-dev flatbuffers-compiler)

log_file="$work_dir/build.log"
source_dir="$work_dir/worker"

say() { printf 'mediasoup-worker build: %s\n' "$*" >&2; }

fail() {
  say "FAILED: $*"
  if [[ -s $log_file ]]; then
    say "last lines of $log_file:"
    tail -n 40 "$log_file" >&2
  fi
  exit 1
}

missing_packages() {
  local package
  for package in "${build_packages[@]}"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$' || printf '%s\n' "$package"
  done
}

# Waits for a concurrent apt or dpkg run instead of failing on its lock.
apt_get() {
  apt-get -o DPkg::Lock::Timeout=300 "$@" >>"$log_file" 2>&1
}

apt_lists_present() {
  compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null
}

install_build_packages() {
  if ! command -v dpkg-query >/dev/null; then
    say "not a Debian system: make sure these (or their equivalents) are installed: ${build_packages[*]}"
    return
  fi
  local missing
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) && return
  if [[ $(id -u) != 0 ]]; then
    say "these Debian packages are needed and only root can install them:"
    printf '    sudo apt-get install --no-install-recommends %s\n' "${missing[*]}" >&2
    fail "missing build packages; install them (command above) and run npm install again"
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt_lists_present; then
    apt_get update || fail "apt-get update"
  fi
  # Stale package lists make the install fail on a .deb that has moved; refresh them once and retry.
  if ! apt_get install -y --no-install-recommends "${missing[@]}"; then
    say "apt-get install failed; updating the package lists and retrying"
    apt_get update || fail "apt-get update"
    apt_get install -y --no-install-recommends "${missing[@]}" || fail "apt-get install ${missing[*]}"
  fi
}

prepare_sources() {
  mkdir -p "$source_dir"
  # A worker installed into the package earlier (out/) is not a source.
  tar -C "$mediasoup_dir/worker" --exclude=./out --exclude=./prebuild -cf - . | tar -C "$source_dir" -xf -
  rm -f "$source_dir"/subprojects/*.wrap
  local patch_file
  for patch_file in "$recipe_dir"/patches/*.patch; do
    patch -d "$source_dir" -p1 --forward --batch --quiet <"$patch_file" >>"$log_file" 2>&1 ||
      fail "patch $(basename "$patch_file") does not apply to mediasoup $(node -p "require('$mediasoup_dir/package.json').version")"
  done
  local dtls_source="$source_dir/src/RTC/DtlsTransport.cpp"
  if ! grep -q '(operationType & BIO_CB_RETURN)' "$dtls_source" || grep -q '(operationType == BIO_CB_RETURN)' "$dtls_source"; then
    fail "the DtlsTransport BIO_CB_RETURN fix is not in $dtls_source"
  fi
  say "patches applied (DtlsTransport BIO_CB_RETURN fix verified)"
  cp -r "$recipe_dir/subprojects/." "$source_dir/subprojects/"
  local subproject
  for subproject in "$source_dir"/subprojects/*/; do
    : >"$subproject/placeholder.c" # the stand-in static libraries need a source file
  done
}

# Runs ninja, logging everything and printing a line at every 10 % of the steps.
ninja_with_progress() {
  local started=$SECONDS next_percent=10 line finished total percent
  NINJA_STATUS='[%f/%t] ' ninja -C "$source_dir/build" -j "$(nproc)" "$@" 2>&1 | while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log_file"
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      finished=${BASH_REMATCH[1]}
      total=${BASH_REMATCH[2]}
      percent=$((finished * 100 / total))
      if ((percent >= next_percent)); then
        say "compiling ${percent} % (${finished}/${total} steps, $((SECONDS - started)) s)"
        next_percent=$((percent / 10 * 10 + 10))
      fi
    fi
  done
}

mkdir -p "$work_dir"
: >"$log_file"
started=$SECONDS
install_build_packages
prepare_sources
say "configuring (meson $(meson --version))"
(cd "$source_dir" && meson setup build --buildtype release -Db_ndebug=true -Dms_disable_liburing=true \
  --wrap-mode=nodownload >>"$log_file" 2>&1) || fail "meson setup"
# The flatbuffers headers are generated first: meson does not order them before the C++ that includes them.
ninja -C "$source_dir/build" fbs/FBS >>"$log_file" 2>&1 || fail "generating the flatbuffers headers"
ninja_with_progress mediasoup-worker || fail "ninja mediasoup-worker"
cp "$source_dir/build/mediasoup-worker" "$work_dir/mediasoup-worker"
say "built in $((SECONDS - started)) s"
