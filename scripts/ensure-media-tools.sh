#!/usr/bin/env bash
# Makes sure the media tools of recordings and transcription are installed: Debian's ffmpeg (records the
# SFU's RTP track by track, renders the composite MP4, ffprobe measures them) with the DejaVu font of the
# composite's name labels, flite (test speech) and pocketsphinx with its US English
# model (offline speech-to-text), and coturn (the TURN server svc runs itself with SVC_TURN=embedded; when
# this script installs it, coturn's own system service stays stopped and disabled so it does not take port
# 3478). Installs the missing ones as root; prints the command to run otherwise.
set -euo pipefail
source "$(dirname "$0")/lib/apt-install.sh"

missing=()
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
command -v flite >/dev/null 2>&1 || missing+=(flite)
command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx)
[[ -d /usr/share/pocketsphinx/model/en-us ]] || missing+=(pocketsphinx-en-us)
command -v turnserver >/dev/null 2>&1 || missing+=(coturn)
# The composite recording's name labels (ffmpeg drawtext; service/src/recordings/composite/render.ts).
[[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || missing+=(fonts-dejavu-core)

if [[ ${#missing[@]} == 0 ]]; then
  exit 0
fi
apt_install ensure-media-tools 'recording, transcription or TURN are unavailable until then' "${missing[@]}"
if [[ " ${missing[*]} " == *" coturn "* ]] && command -v systemctl >/dev/null 2>&1; then
  systemctl disable --quiet coturn.service 2>/dev/null || true
fi
