#!/usr/bin/env bash
# Regenerates the bundled sample model resources/models/sample_gpt.onnx with the built `tapas zoo`:
# a 6-layer GPT (hidden 512, 8 heads, vocab 8192) with symbolic batch and seq. Its weights are
# declared external in gpt.weights, which is never written (planning needs shapes only).
# The zoo is deterministic, so rerunning gives identical bytes (tests/core/tst_zoo.cpp checks it).
#   bash scripts/make-sample-model.sh [path/to/tapas] [output.onnx]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tapas="${1:-${BUILD_DIR:-$here/build}/bin/tapas}"
out="${2:-$here/resources/models/sample_gpt.onnx}"
"$tapas" zoo gpt --layers 6 --hidden 512 --heads 8 --vocab 8192 -o "$out"
