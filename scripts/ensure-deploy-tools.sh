#!/usr/bin/env bash
# Makes sure the servers that the deploy tests run beside svc are installed, from Debian's packages: pebble
# (an ACME test CA, with pebble-challtestsrv), caddy (the reverse proxy of deploy/Caddyfile), coturn (the
# TURN server svc supervises) and NSS's certutil (browser tests trust a test CA). Installs the missing ones
# in one apt-get call when run as root, without starting their services (tests start their own on
# loopback); prints the command to run otherwise.
set -euo pipefail

missing=()
command -v pebble >/dev/null 2>&1 && command -v pebble-challtestsrv >/dev/null 2>&1 || missing+=(pebble)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v turnserver >/dev/null 2>&1 || missing+=(coturn)
command -v certutil >/dev/null 2>&1 || missing+=(libnss3-tools)

if [[ ${#missing[@]} == 0 ]]; then
  exit 0
fi

if [[ $(id -u) != 0 ]]; then
  echo "ensure-deploy-tools: ${missing[*]} missing and only root can install them (the deploy tests need them):" >&2
  echo "    sudo apt-get update && sudo apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

echo "ensure-deploy-tools: installing Debian's ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt_options=(-o DPkg::Lock::Timeout=300 -qq)
if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1) ]]; then
  apt-get "${apt_options[@]}" update >&2
fi
# The packages' own services stay stopped: policy-rc.d 101 tells invoke-rc.d not to start anything.
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get "${apt_options[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
