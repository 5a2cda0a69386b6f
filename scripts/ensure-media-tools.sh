#!/usr/bin/env bash
# Makes sure the media tools of recordings and transcription are installed: Debian's ffmpeg (records the
# SFU's RTP into webm, ffprobe measures it), flite (test speech) and pocketsphinx with its US English
# model (offline speech-to-text), and coturn (the TURN server svc runs itself with SVC_TURN=embedded; when
# this script installs it, coturn's own system service stays stopped and disabled so it does not take port
# 3478). Installs the missing ones in one apt-get call when run as root (apt-get update only when the
# package lists are missing or stale); prints the command to run otherwise.
set -euo pipefail

missing=()
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
command -v flite >/dev/null 2>&1 || missing+=(flite)
command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx)
[[ -d /usr/share/pocketsphinx/model/en-us ]] || missing+=(pocketsphinx-en-us)
command -v turnserver >/dev/null 2>&1 || missing+=(coturn)

if [[ ${#missing[@]} == 0 ]]; then
  exit 0
fi

if [[ $(id -u) != 0 ]]; then
  echo "ensure-media-tools: ${missing[*]} missing and only root can install them (recording, transcription or TURN are unavailable until then):" >&2
  echo "    sudo apt-get update && sudo apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

echo "ensure-media-tools: installing Debian's ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Waits for a concurrent apt or dpkg run instead of failing on its lock.
apt_options=(-o DPkg::Lock::Timeout=300 -qq)
if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1) ]]; then
  apt-get "${apt_options[@]}" update >&2
fi
# coturn's package would start its own turnserver on 3478 (policy-rc.d 101 tells invoke-rc.d not to start anything).
policy=/usr/sbin/policy-rc.d
if [[ " ${missing[*]} " == *" coturn "* && ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get "${apt_options[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
if [[ " ${missing[*]} " == *" coturn "* ]] && command -v systemctl >/dev/null 2>&1; then
  systemctl disable --quiet coturn.service 2>/dev/null || true
fi
