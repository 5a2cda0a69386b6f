#!/usr/bin/env bash
# Makes sure the servers that the deploy tests run beside svc are installed, from Debian's packages: pebble
# (an ACME test CA, with pebble-challtestsrv), caddy (the reverse proxy of deploy/Caddyfile), coturn (the
# TURN server svc supervises), NSS's certutil (browser tests trust a test CA) and redis-server (the registry
# of media nodes, SVC_REDIS_URL). Installs the missing ones as root, without starting their services (tests
# start their own on loopback); prints the command to run otherwise.
set -euo pipefail
source "$(dirname "$0")/lib/apt-install.sh"

missing=()
command -v pebble >/dev/null 2>&1 && command -v pebble-challtestsrv >/dev/null 2>&1 || missing+=(pebble)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v turnserver >/dev/null 2>&1 || missing+=(coturn)
command -v certutil >/dev/null 2>&1 || missing+=(libnss3-tools)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)

if [[ ${#missing[@]} == 0 ]]; then
  exit 0
fi
apt_install ensure-deploy-tools 'the deploy tests need them' "${missing[@]}"
