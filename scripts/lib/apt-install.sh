# Sourced by the scripts/ensure-*.sh scripts: installs the Debian packages the project needs in one apt-get call.

# apt_install WHO WHAT PACKAGE...: as root, installs the packages (apt-get update first when the package lists
# are missing or a day old), without starting any service they bring; otherwise prints the command to run and
# returns 1. WHO names the calling script in messages; WHAT says what does not work until they are installed.
apt_install() {
  local who=$1 what=$2
  shift 2
  if [[ $(id -u) != 0 ]]; then
    echo "$who: $* missing and only root can install them ($what):" >&2
    echo "    sudo apt-get update && sudo apt-get install --no-install-recommends $*" >&2
    return 1
  fi
  echo "$who: installing Debian's $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Waits for a concurrent apt or dpkg run instead of failing on its lock.
  local apt_options=(-o DPkg::Lock::Timeout=300 -qq)
  if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1) ]]; then
    apt-get "${apt_options[@]}" update >&2
  fi
  # A package's own service (coturn's turnserver on 3478) must not start: policy-rc.d 101 tells invoke-rc.d so.
  local policy=/usr/sbin/policy-rc.d made_policy=false status=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    made_policy=true
  fi
  apt-get "${apt_options[@]}" install -y --no-install-recommends "$@" >/dev/null || status=$?
  if $made_policy; then rm -f "$policy"; fi
  return $status
}
