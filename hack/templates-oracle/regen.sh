#!/usr/bin/env bash
# Regenerates the golden outputs of the template corpus with Go's text/template + Sprig v3.3.0
# (and Helm's include/tpl/required/toYaml/fromYaml). Needs Go and the Go module proxy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="${1:-$here/../../templates/testdata/corpus}"
cd "$here"
go mod tidy >/dev/null 2>&1 || true
go run . "$corpus"
