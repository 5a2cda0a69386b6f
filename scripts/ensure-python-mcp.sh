#!/usr/bin/env bash
# Installs the Python MCP SDK (the second, independent client of the MCP tests) into a cache directory outside
# the repo, once per version, and prints that directory (for PYTHONPATH). Exits non-zero when pip cannot install it.
set -euo pipefail
version="${SVC_PYTHON_MCP_VERSION:-2.3.0}"
dir="${SVC_CACHE_DIR:-$HOME/.cache/svc}/python-mcp-$version"
if [ -f "$dir/.complete" ]; then
  echo "$dir"
  exit 0
fi
command -v python3 >/dev/null || { echo "python3 is not installed" >&2; exit 1; }
rm -rf "$dir.tmp"
mkdir -p "$(dirname "$dir")"
# --retries 0: an index that cannot be reached is skipped at once instead of retried with back-off.
python3 -m pip install --quiet --disable-pip-version-check --retries 0 --root-user-action=ignore --target "$dir.tmp" "mcp==$version" >&2
touch "$dir.tmp/.complete"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$dir"
