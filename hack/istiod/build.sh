#!/usr/bin/env bash
# Builds istiod (istio.io/istio's pilot-discovery) from its Go module only, for the benchmarks' `--reference istiod`
# and their smoke test (see ../shared/notes/istiod-reference.md: about 10 minutes on 2 cores, a 190 MB binary).
#
# Output: ${MESH_ISTIOD_DIR:-$HOME/.cache/mesh/istiod}/pilot-discovery (where bench:xds and bench:ca look by default).
# Idempotent: a binary already present is reused (delete it to rebuild).
# Prints the binary's path on the last line of stdout so callers can capture it.
set -euo pipefail

ISTIO_VERSION="v0.0.0-20260827124520-eed52ebb66ad"

LOG_PREFIX=istiod
# shellcheck source=../lib/test-bin.sh
source "$(dirname "$0")/../lib/test-bin.sh"
OUT_DIR="${MESH_ISTIOD_DIR:-$HOME/.cache/mesh/istiod}"
mkdir -p "${OUT_DIR}"
reuse_or_lock "${OUT_DIR}" "${OUT_DIR}/pilot-discovery" "${OUT_DIR}/pilot-discovery"
use_go "istiod"

start="$(date +%s)"
log "building istio.io/istio pilot-discovery ${ISTIO_VERSION}"
GOBIN="${OUT_DIR}" go install "istio.io/istio/pilot/cmd/pilot-discovery@${ISTIO_VERSION}"
log "built in $(($(date +%s) - start))s: ${OUT_DIR}/pilot-discovery"
echo "${OUT_DIR}/pilot-discovery"
