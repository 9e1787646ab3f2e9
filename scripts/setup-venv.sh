#!/usr/bin/env bash
# Makes the Python virtual environment the client tests use (default
# build/venv) and installs the pinned clients of scripts/client-requirements.txt
# from PyPI into it, when they are not there yet.
#   scripts/setup-venv.sh [<venv directory>]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-${SCOPEALLOC_BUILD_DIR:-$root/build}/venv}
requirements=$root/scripts/client-requirements.txt

if [ ! -x "$venv/bin/python3" ]; then
  echo "scopealloc setup: making the Python environment $venv"
  python3 -m venv "$venv"
fi
# Installed already when every pinned name==version is in pip's list.
have=$("$venv/bin/python3" -m pip freeze --disable-pip-version-check 2>/dev/null || true)
missing=0
while read -r want; do
  want=${want%%#*}
  want=$(echo "$want" | tr -d '[:space:]')
  [ -z "$want" ] && continue
  grep -qixF "$want" <<<"$have" || missing=1
done <"$requirements"
if [ "$missing" = 1 ]; then
  echo "scopealloc setup: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv"
  "$venv/bin/python3" -m pip install --disable-pip-version-check -q -r "$requirements"
fi
