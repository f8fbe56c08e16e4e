#!/usr/bin/env bash
# Builds an OCI registry and crane (github.com/google/go-containerregistry's cmd/registry and cmd/crane) for
# the agent's Wasm-from-OCI tests, from their Go module only, the way hack/helm/build.sh builds helm.
#
# Output: ${MESH_TEST_BIN_DIR:-$HOME/.cache/mesh/test-bin}/ggcr-<GGCR_VERSION>/{registry,crane}
# Idempotent: binaries already present are reused (delete the folder to rebuild).
# Prints the folder on the last line of stdout so callers can capture it.
set -euo pipefail

GGCR_VERSION="v0.22.1"

LOG_PREFIX=oci
# shellcheck source=../lib/test-bin.sh
source "$(dirname "$0")/../lib/test-bin.sh"
OUT_DIR="$(test_bin_dir "ggcr-${GGCR_VERSION}")"
reuse_or_lock "${OUT_DIR}" "${OUT_DIR}" "${OUT_DIR}/registry" "${OUT_DIR}/crane"
use_go "the OCI registry"

start="$(date +%s)"
log "building go-containerregistry ${GGCR_VERSION} registry and crane"
GOBIN="${OUT_DIR}" go install -trimpath \
  "github.com/google/go-containerregistry/cmd/registry@${GGCR_VERSION}" \
  "github.com/google/go-containerregistry/cmd/crane@${GGCR_VERSION}"
log "built in $(($(date +%s) - start))s: ${OUT_DIR}"
echo "${OUT_DIR}"
