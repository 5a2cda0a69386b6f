#!/usr/bin/env bash
# Makes sure Debian's chromium is at /usr/bin/chromium for the browser tests, which drive it with
# playwright-core (never `npx playwright install`: it downloads browsers from a CDN). Installs the
# package when run as root (apt-get update first); does nothing when it is there already.
set -euo pipefail

chromium=/usr/bin/chromium

if [[ -x $chromium ]]; then
  exit 0
fi

if [[ $(id -u) != 0 ]]; then
  echo "ensure-chromium: $chromium is missing and only root can install it:" >&2
  echo "    sudo apt-get update && sudo apt-get install --no-install-recommends chromium" >&2
  exit 1
fi

echo "ensure-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
# Waits for a concurrent apt or dpkg run instead of failing on its lock.
apt_options=(-o DPkg::Lock::Timeout=300 -qq)
apt-get "${apt_options[@]}" update >&2
apt-get "${apt_options[@]}" install -y --no-install-recommends chromium >/dev/null
"$chromium" --version >&2
