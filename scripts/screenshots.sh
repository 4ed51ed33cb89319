#!/usr/bin/env bash
# Takes the README's screenshots with an already built tree (this script builds nothing):
# docs/images/folded_gpt12.png, Tapas Studio showing the folded graph of a 12-layer zoo GPT,
# grabbed by `tapas-studio --screenshot` once the background layout has been applied.
# Runs under Xvfb so it works on a headless machine.
#   BUILD_DIR=build-release bash scripts/screenshots.sh     (BUILD_DIR defaults to build)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in
  /*) ;;
  *) build="$here/$build" ;;
esac
tapas="$build/bin/tapas"
studio="$build/bin/tapas-studio"
for exe in "$tapas" "$studio"; do
  if [[ ! -x "$exe" ]]; then
    echo "screenshots.sh: $exe is missing; build it first (ninja -C $build tapas tapas-studio)" >&2
    exit 1
  fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/docs/images"

model="$work/gpt12.onnx"
"$tapas" zoo gpt --layers 12 -o "$model"
# A throwaway settings directory: the picture must not depend on the user's saved layout.
XDG_CONFIG_HOME="$work/config" xvfb-run -a -s "-screen 0 1600x1000x24" \
  env QT_QPA_PLATFORM=xcb "$studio" --lang en "$model" --screenshot "$here/docs/images/folded_gpt12.png"
