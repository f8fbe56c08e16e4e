#!/usr/bin/env bash
# Builds the kube-apiserver and etcd binaries used by the e2e tests, from Go modules only.
#
# Output: ${MESH_TEST_BIN_DIR:-$HOME/.cache/mesh/test-bin}/<BIN_VERSION>/{kube-apiserver,etcd}
# Idempotent: binaries already present are reused (delete the folder to rebuild).
# Prints the folder on the last line of stdout so callers can capture it.
#
# Pinned versions (change them together; the staging modules of k8s.io/kubernetes vX.Y.Z are v0.Y.Z):
#   k8s.io/kubernetes        v1.34.4   (staging k8s.io/* v0.34.4)
#   go.etcd.io/etcd/server   v3.6.5    (the etcd 3.6 line Kubernetes 1.34 is tested with)
set -euo pipefail

K8S_VERSION="v1.34.4"
K8S_STAGING_VERSION="v0.34.4"
ETCD_VERSION="v3.6.5"
BIN_VERSION="k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}"

LOG_PREFIX=test-bins
# shellcheck source=../lib/test-bin.sh
source "$(dirname "$0")/../lib/test-bin.sh"
OUT_DIR="$(test_bin_dir "${BIN_VERSION}")"
reuse_or_lock "${OUT_DIR}" "${OUT_DIR}" "${OUT_DIR}/etcd" "${OUT_DIR}/kube-apiserver"
use_go "kube-apiserver and etcd"

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/mesh-test-bins.XXXXXX")"
trap 'rm -rf "${WORK_DIR}"' EXIT

# build_etcd: a throwaway module requiring the etcd server module, built as the `etcd` binary.
build_etcd() {
  local dir="${WORK_DIR}/etcd"
  mkdir -p "${dir}"
  cat >"${dir}/go.mod" <<EOF
module mesh.local/testbins/etcd

go 1.24

require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}
EOF
  (cd "${dir}" && go mod download go.etcd.io/etcd/server/v3 \
    && go build -trimpath -ldflags='-s -w' -o "${OUT_DIR}/etcd.tmp.$$" go.etcd.io/etcd/server/v3)
  mv "${OUT_DIR}/etcd.tmp.$$" "${OUT_DIR}/etcd"
}

# build_kube_apiserver: a throwaway module requiring k8s.io/kubernetes, with every staging module
# (listed as `replace k8s.io/x => ./staging/src/k8s.io/x` in the kubernetes go.mod) pinned to its
# published v0.Y.Z release.
build_kube_apiserver() {
  local dir="${WORK_DIR}/kube-apiserver"
  mkdir -p "${dir}"
  local k8s_gomod
  k8s_gomod="$(cd "${dir}" && GOFLAGS= go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" \
    | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  if [ -z "${k8s_gomod}" ] || [ ! -f "${k8s_gomod}" ]; then
    log "error: could not download the go.mod of k8s.io/kubernetes@${K8S_VERSION}"
    exit 1
  fi
  local staging
  staging="$(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9./-]*\) => \./staging/src/.*$#\1#p' "${k8s_gomod}" | sort -u)"
  if [ -z "${staging}" ]; then
    log "error: no staging replace lines found in ${k8s_gomod}"
    exit 1
  fi
  {
    echo "module mesh.local/testbins/kubeapiserver"
    echo
    echo "go 1.24"
    echo
    echo "require k8s.io/kubernetes ${K8S_VERSION}"
    echo
    echo "replace ("
    local m
    for m in ${staging}; do
      echo "	${m} => ${m} ${K8S_STAGING_VERSION}"
    done
    echo ")"
  } >"${dir}/go.mod"
  # NOTE: stamp the version as the Kubernetes release build does, so /version answers v1.Y.Z.
  local minor="${K8S_VERSION#v1.}"
  minor="${minor%%.*}"
  local pkg="k8s.io/component-base/version"
  local ldflags="-s -w -X ${pkg}.gitVersion=${K8S_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
  ldflags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  (cd "${dir}" && go build -trimpath -ldflags="${ldflags}" -o "${OUT_DIR}/kube-apiserver.tmp.$$" \
    k8s.io/kubernetes/cmd/kube-apiserver)
  mv "${OUT_DIR}/kube-apiserver.tmp.$$" "${OUT_DIR}/kube-apiserver"
}

timed() {
  local name="$1"
  shift
  local start end
  start="$(date +%s)"
  "$@"
  end="$(date +%s)"
  log "built ${name} in $((end - start))s"
}

total_start="$(date +%s)"
if [ -x "${OUT_DIR}/etcd" ]; then
  log "reusing ${OUT_DIR}/etcd"
else
  log "building etcd ${ETCD_VERSION} (first build takes minutes)"
  timed etcd build_etcd
fi
if [ -x "${OUT_DIR}/kube-apiserver" ]; then
  log "reusing ${OUT_DIR}/kube-apiserver"
else
  log "building kube-apiserver ${K8S_VERSION} (first build can take 10+ minutes)"
  timed kube-apiserver build_kube_apiserver
fi
log "done in $(($(date +%s) - total_start))s: ${OUT_DIR}"
echo "${OUT_DIR}"
