#!/usr/bin/env bash
# Makes a Python virtual environment under .tools/venvs/<name> with the pinned packages of a
# requirements file (from PyPI, through pip), and prints its python's path on stdout.
# Idempotent: when the environment was made from the same requirements, it only prints the path.
#
#   python="$(scripts/tools/python-venv.sh contracts scripts/contracts/requirements.txt)"
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: python-venv.sh <name> <requirements file>" >&2
  exit 2
fi
name="$1"
requirements="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.tools/venvs/$name"
stamp="$venv/.requirements"

# Test files run two at a time: two installs of the same tool wait for each other, the second
# then finding it installed.
mkdir -p "$root/.tools"
exec 9>"$root/.tools/.lock-venv-$name"
flock 9

if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$stamp" "$requirements"; then
  echo "$venv/bin/python"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "python-venv: Python 3 is needed (https://www.python.org/downloads/)" >&2
  exit 1
fi

echo "python-venv: making $venv from $requirements..." >&2
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  --require-virtualenv -r "$requirements" >&2
cp "$requirements" "$stamp"
echo "$venv/bin/python"
