#!/usr/bin/env bash
# Installs the pinned Helm 3 into .tools/bin/helm and prints its path on stdout.
#
# Helm is built from source with `go install`, so the only network this needs is the Go module
# proxy (no GitHub release download, no package manager, no container registry). Idempotent:
# when .tools/bin/helm already reports the pinned version, it only prints the path.
#
#   helm="$(scripts/helm/install-helm.sh)" && "$helm" version
set -euo pipefail

# Bump deliberately: the chart is linted and rendered by test/deploy/helm.test.ts with this one.
readonly HELM_VERSION=v3.22.0
readonly MODULE=helm.sh/helm/v3

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin_dir="$root/.tools/bin"
helm="$bin_dir/helm"

installed="$("$helm" version --template '{{.Version}}' 2>/dev/null || true)"
if [[ "$installed" == "$HELM_VERSION" ]]; then
  echo "$helm"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-helm: Go is needed to build helm $HELM_VERSION (https://go.dev/dl/)" >&2
  exit 1
fi

# Run outside any Go module, so nothing here changes a go.mod.
cd "$root"
echo "install-helm: building helm $HELM_VERSION with $(go env GOVERSION) (takes a few minutes)..." >&2

# `go install` skips the ldflags of helm's Makefile. Without them `helm version` says only
# "v3.22", and the default Kubernetes version for `helm template` / `helm lint` stays at 1.20.
# The Makefile derives that default from client-go (v0.N.x -> Kubernetes 1.N); so do we.
go_mod="$(go mod download -json "$MODULE@$HELM_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
client_go="$(awk '$1 == "k8s.io/client-go" { print $2 }' "$go_mod")"
kube_minor="$(echo "$client_go" | cut -d. -f2)"
if [[ ! "$kube_minor" =~ ^[0-9]+$ ]]; then
  echo "install-helm: cannot read the client-go version from $go_mod" >&2
  exit 1
fi

ldflags="-s -w -X $MODULE/internal/version.version=$HELM_VERSION"
for pkg in pkg/chartutil pkg/lint/rules; do
  ldflags+=" -X $MODULE/$pkg.k8sVersionMajor=1 -X $MODULE/$pkg.k8sVersionMinor=$kube_minor"
done

mkdir -p "$bin_dir"
GOBIN="$bin_dir" CGO_ENABLED=0 go install -trimpath -ldflags "$ldflags" "$MODULE/cmd/helm@$HELM_VERSION"

installed="$("$helm" version --template '{{.Version}}')"
if [[ "$installed" != "$HELM_VERSION" ]]; then
  echo "install-helm: built helm reports $installed, expected $HELM_VERSION" >&2
  exit 1
fi
echo "install-helm: installed $helm ($installed, default Kubernetes 1.$kube_minor)" >&2
echo "$helm"
