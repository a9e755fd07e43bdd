#!/usr/bin/env bash
# Makes a Python virtual environment under .tools/venvs/<name> with the pinned packages of a
# requirements file (from PyPI, through pip), and prints its python's path on stdout.
# Idempotent: when the environment was made from the same requirements, it only prints the path.
#
#   python="$(scripts/tools/python-venv.sh contracts scripts/contracts/requirements.txt)"
#
# With --check first, it makes nothing: it prints the path and exits 0 when the environment is
# there, or prints what making it would take and exits 1 (test/support/tools.ts).
set -euo pipefail

check=false
if [[ "${1:-}" == --check ]]; then
  check=true
  shift
fi
if [[ $# -ne 2 ]]; then
  echo "usage: python-venv.sh [--check] <name> <requirements file>" >&2
  exit 2
fi
name="$1"
requirements="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.tools/venvs/$name"
stamp="$venv/.requirements"

ready() {
  [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$stamp" "$requirements"
}

if $check; then
  if ready; then
    echo "$venv/bin/python"
    exit 0
  fi
  echo "the Python environment $name from PyPI ($(grep -c '^[A-Za-z]' "$requirements") pinned packages)"
  exit 1
fi

# Two runs making the same environment at once wait for each other, the second then finding it made.
mkdir -p "$root/.tools"
exec 9>"$root/.tools/.lock-venv-$name"
flock 9

if ready; then
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
