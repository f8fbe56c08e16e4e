#!/usr/bin/env bash
# Builds an OCI registry and crane (github.com/google/go-containerregistry's cmd/registry and cmd/crane) for
# the agent's Wasm-from-OCI tests, from their Go module only, the way hack/helm/build.sh builds helm.
#
# Output: ${MESH_TEST_BIN_DIR:-$HOME/.cache/mesh/test-bin}/ggcr-<GGCR_VERSION>/{registry,crane}
# Idempotent: binaries already present are reused (delete the folder to rebuild).
# Prints the folder on the last line of stdout so callers can capture it.
set -euo pipefail

GGCR_VERSION="v0.22.1"

BASE_DIR="${MESH_TEST_BIN_DIR:-$HOME/.cache/mesh/test-bin}"
OUT_DIR="${BASE_DIR}/ggcr-${GGCR_VERSION}"
mkdir -p "${OUT_DIR}"

log() { echo "[oci] $*" >&2; }

if [ -x "${OUT_DIR}/registry" ] && [ -x "${OUT_DIR}/crane" ]; then
  log "reusing ${OUT_DIR}"
  echo "${OUT_DIR}"
  exit 0
fi

if command -v flock >/dev/null 2>&1; then
  exec 9>"${OUT_DIR}/.build.lock"
  flock 9
  if [ -x "${OUT_DIR}/registry" ] && [ -x "${OUT_DIR}/crane" ]; then
    echo "${OUT_DIR}"
    exit 0
  fi
fi

export GOFLAGS="-mod=mod"
export CGO_ENABLED=0
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:${PATH}"
  else
    log "error: the Go toolchain (go) is required to build the OCI registry"
    exit 1
  fi
fi

start="$(date +%s)"
log "building go-containerregistry ${GGCR_VERSION} registry and crane"
GOBIN="${OUT_DIR}" go install -trimpath \
  "github.com/google/go-containerregistry/cmd/registry@${GGCR_VERSION}" \
  "github.com/google/go-containerregistry/cmd/crane@${GGCR_VERSION}"
log "built in $(($(date +%s) - start))s: ${OUT_DIR}"
echo "${OUT_DIR}"
