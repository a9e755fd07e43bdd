#!/usr/bin/env bash
# Installs Chromium from Debian's packages when it is missing, for the console's browser test
# (test/console/), and prints its path:
#
#   chromium="$(scripts/tools/install-chromium.sh)"
#
# The test drives it with playwright-core (no browser of Playwright's own is downloaded). Only
# Debian's archive is needed (apt-get, as root or through sudo); about 100 MB the first time,
# nothing after. The integration tests' global setup runs it before any test (test/support/
# tools.ts); with --check first it installs nothing: it prints the path and exits 0 when
# Chromium is there, or says what installing it takes and exits 1. A lock keeps two runs from
# installing at once.
set -euo pipefail

found() { command -v chromium || command -v chromium-browser || true; }

path="$(found)"
if [ -z "$path" ] && [ "${1:-}" = --check ]; then
  echo "Chromium is missing: scripts/tools/install-chromium.sh installs it (apt-get install chromium, about 100 MB)"
  exit 1
fi
if [ -z "$path" ]; then
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  mkdir -p "$root/.tools"
  exec 9>"$root/.tools/chromium.lock"
  flock 9
  path="$(found)"
  if [ -z "$path" ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
      if ! command -v sudo >/dev/null; then
        echo "install-chromium.sh: Chromium is missing and installing it needs root (apt-get install chromium)" >&2
        exit 1
      fi
      sudo="sudo -n"
    fi
    echo "install-chromium.sh: installing chromium from Debian's packages" >&2
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >&2
    path="$(found)"
  fi
fi
[ "${1:-}" = --check ] || "$path" --version 2>/dev/null | head -1 >&2 || true
echo "$path"
