#!/usr/bin/env bash
# Builds the `helm` binary used by the chart differential tests, from its Go module only
# (helm.sh/helm/v3/cmd/helm through the Go module proxy), the way hack/k8s/build.sh builds kube-apiserver.
#
# Output: ${MESH_TEST_BIN_DIR:-$HOME/.cache/mesh/test-bin}/helm-<HELM_VERSION>/helm
# Idempotent: a binary already present is reused (delete the folder to rebuild).
# Prints the binary's path on the last line of stdout so callers can capture it.
set -euo pipefail

HELM_VERSION="v3.19.0"

LOG_PREFIX=helm
# shellcheck source=../lib/test-bin.sh
source "$(dirname "$0")/../lib/test-bin.sh"
OUT_DIR="$(test_bin_dir "helm-${HELM_VERSION}")"
reuse_or_lock "${OUT_DIR}" "${OUT_DIR}/helm" "${OUT_DIR}/helm"
use_go helm

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/mesh-helm.XXXXXX")"
trap 'rm -rf "${WORK_DIR}"' EXIT

start="$(date +%s)"
log "building helm ${HELM_VERSION} (first build takes minutes)"
cat >"${WORK_DIR}/go.mod" <<GOMOD
module mesh.local/testbins/helm

go 1.24

require helm.sh/helm/v3 ${HELM_VERSION}
GOMOD
# NOTE: stamp the version as helm's Makefile does, so `helm version` answers HELM_VERSION.
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
(cd "${WORK_DIR}" && go mod download helm.sh/helm/v3 \
  && go build -trimpath -ldflags="${ldflags}" -o "${OUT_DIR}/helm.tmp.$$" helm.sh/helm/v3/cmd/helm)
mv "${OUT_DIR}/helm.tmp.$$" "${OUT_DIR}/helm"
log "built helm in $(($(date +%s) - start))s: ${OUT_DIR}/helm"
echo "${OUT_DIR}/helm"
