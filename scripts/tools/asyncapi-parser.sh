#!/usr/bin/env bash
# Installs the pinned @asyncapi/parser (the AsyncAPI Initiative's own validator) from npm into
# .tools/asyncapi, outside the project's dependencies, and prints that folder on stdout.
# Idempotent: when that version is installed, it only prints the folder. With --check, it
# installs nothing: it prints the folder and exits 0 when installed, or prints what installing
# would take and exits 1 (test/support/tools.ts).
set -euo pipefail

readonly PARSER_VERSION=3.6.3

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/.tools/asyncapi"
stamp="$dir/.installed"

ready() {
  [[ -f "$stamp" && "$(cat "$stamp")" == "$PARSER_VERSION" ]]
}

if [[ "${1:-}" == --check ]]; then
  if ready; then
    echo "$dir"
    exit 0
  fi
  echo "@asyncapi/parser $PARSER_VERSION from npm"
  exit 1
fi

# Two runs installing it at once wait for each other, the second then finding it installed.
mkdir -p "$root/.tools"
exec 9>"$root/.tools/.lock-asyncapi"
flock 9

if ready; then
  echo "$dir"
  exit 0
fi

echo "asyncapi-parser: installing @asyncapi/parser@$PARSER_VERSION into $dir..." >&2
rm -rf "$dir"
mkdir -p "$dir"
echo '{ "private": true }' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@asyncapi/parser@$PARSER_VERSION" >&2
echo "$PARSER_VERSION" >"$stamp"
echo "$dir"
