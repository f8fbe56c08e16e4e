# Shared by the hack/*/build.sh scripts that build test binaries from Go modules (kube-apiserver and etcd,
# helm, the OCI registry): where the binaries go, reusing them, one build at a time, and the Go toolchain.
# Source it after setting LOG_PREFIX; each function exits the calling script where it says so.

# The folder of the test binaries of one version: ${MESH_TEST_BIN_DIR:-$HOME/.cache/mesh/test-bin}/<name>, created.
test_bin_dir() {
  local dir="${MESH_TEST_BIN_DIR:-$HOME/.cache/mesh/test-bin}/$1"
  mkdir -p "${dir}"
  echo "${dir}"
}

log() { echo "[${LOG_PREFIX}] $*" >&2; }

# all_executable FILE...: whether every file is an executable.
all_executable() {
  local f
  for f in "$@"; do [ -x "${f}" ] || return 1; done
}

# reuse_or_lock OUT_DIR RESULT FILE...: when every FILE is built, prints RESULT and exits 0 (the caller's last
# line of stdout); else takes the folder's build lock (a second caller waits, then finds the files built) and returns.
reuse_or_lock() {
  local out_dir="$1" result="$2"
  shift 2
  if all_executable "$@"; then
    log "reusing ${result}"
    echo "${result}"
    exit 0
  fi
  if command -v flock >/dev/null 2>&1; then
    exec 9>"${out_dir}/.build.lock"
    flock 9
    if all_executable "$@"; then
      echo "${result}"
      exit 0
    fi
  fi
}

# use_go WHAT: module-mode, static, local-toolchain Go on PATH (/usr/local/go/bin if needed), or exit 1 naming WHAT.
use_go() {
  export GOFLAGS="-mod=mod"
  export CGO_ENABLED=0
  export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
  if ! command -v go >/dev/null 2>&1; then
    if [ -x /usr/local/go/bin/go ]; then
      export PATH="/usr/local/go/bin:${PATH}"
    else
      log "error: the Go toolchain (go) is required to build $1"
      exit 1
    fi
  fi
}
