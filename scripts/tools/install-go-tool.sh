#!/usr/bin/env bash
# Installs a pinned Go-built tool into .tools/bin and prints its path on stdout:
#
#   helm="$(scripts/tools/install-go-tool.sh helm)" && "$helm" lint helm/signing-bridge
#
# With --check first, it builds nothing: it prints the path and exits 0 when the pinned build is
# there, or prints what building it would take and exits 1 (test/support/tools.ts).
#
# The tool is built from source with a plain `go install MODULE/cmd/TOOL@VERSION`, so the only
# network it needs is the Go module proxy (no release download, no container registry), and it
# behaves as any user's plain build would. Idempotent: when .tools/bin/TOOL was built from the
# pinned module version (`go version -m` reads that from the binary), it only prints the path.
# The first build takes minutes (helm about 3, promtool about 5, mostly downloading modules);
# with Go's module and build caches warm, a rebuild in a fresh clone takes seconds.
set -euo pipefail

check=false
if [[ "${1:-}" == --check ]]; then
  check=true
  shift
fi

# Bump deliberately: the chart, the alert rules and their tests are checked with these.
# promtool comes from Prometheus' Go module, whose v0.316.0 is Prometheus 3.16.0.
case "${1:-}" in
  helm) readonly MODULE=helm.sh/helm/v3 VERSION=v3.22.0 ;;
  promtool) readonly MODULE=github.com/prometheus/prometheus VERSION=v0.316.0 ;;
  *)
    echo "usage: $0 [--check] helm|promtool" >&2
    exit 2
    ;;
esac
readonly TOOL="$1"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin_dir="$root/.tools/bin"
binary="$bin_dir/$TOOL"

built_from() {
  go version -m "$binary" 2>/dev/null | awk '$1 == "mod" { print $2 "@" $3 }'
}

# Whether Go's module cache holds the module already: a cold one means minutes of downloads.
module_cache() {
  local escaped
  escaped="$(sed 's/[A-Z]/!\L&/g' <<<"$MODULE")"
  if [[ -f "$(go env GOMODCACHE)/cache/download/$escaped/@v/$VERSION.zip" ]]; then
    echo warm
  else
    echo cold
  fi
}

if ! command -v go >/dev/null 2>&1; then
  echo "install-go-tool: Go is needed to build $TOOL $VERSION (https://go.dev/dl/)" >&2
  exit 1
fi

if $check; then
  if [[ -x "$binary" && "$(built_from)" == "$MODULE@$VERSION" ]]; then
    echo "$binary"
    exit 0
  fi
  echo "$TOOL $VERSION from the Go module proxy ($(module_cache) Go module cache)"
  exit 1
fi

# Two runs building the same tool at once wait for each other, the second then finding it built.
mkdir -p "$root/.tools"
exec 9>"$root/.tools/.lock-$TOOL"
flock 9

if [[ -x "$binary" && "$(built_from)" == "$MODULE@$VERSION" ]]; then
  echo "$binary"
  exit 0
fi

# Run outside any Go module, so nothing here changes a go.mod.
cd "$root"
echo "install-go-tool: building $TOOL $VERSION with $(go env GOVERSION)..." >&2
mkdir -p "$bin_dir"
GOBIN="$bin_dir" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
  go install -trimpath -ldflags "-s -w" "$MODULE/cmd/$TOOL@$VERSION"

if [[ "$(built_from)" != "$MODULE@$VERSION" ]]; then
  echo "install-go-tool: $binary was not built from $MODULE@$VERSION" >&2
  exit 1
fi
echo "install-go-tool: installed $binary ($MODULE@$VERSION)" >&2
echo "$binary"
