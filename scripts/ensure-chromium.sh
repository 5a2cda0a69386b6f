#!/usr/bin/env bash
# Makes sure Debian's chromium is at /usr/bin/chromium for the browser tests, which drive it with
# playwright-core (never `npx playwright install`: it downloads browsers from a CDN). Installs the
# package when run as root; does nothing when it is there already.
set -euo pipefail
source "$(dirname "$0")/lib/apt-install.sh"

chromium=/usr/bin/chromium

if [[ -x $chromium ]]; then
  exit 0
fi
apt_install ensure-chromium 'the browser tests cannot run' chromium
"$chromium" --version >&2
