#!/usr/bin/env bash
# Takes the README's screenshots with an already built tree (this script builds nothing):
# docs/images/folded_gpt12.png, Tapas Studio at 1366x768 with a first launch's layout showing the
# folded graph of a 12-layer zoo GPT, grabbed by `tapas-studio --screenshot` once the background
# layout has been applied; docs/images/welcome.png, the welcome page of a start without a model;
# docs/images/plan_window.png, the whole 1366x768 window after `--search a100x8:2x4` planned the
# same GPT (with a fixed batch and sequence) for one 8-GPU node: the graph coloured by the plan's
# sharding with its legend above it, the Plan and Costs docks below; docs/images/plan_dock.png and
# docs/images/costs_dock.png, those two docks on their own.
# Runs under Xvfb so it works on a headless machine.
#   BUILD_DIR=build-release bash scripts/screenshots.sh        (BUILD_DIR defaults to build)
#   BUILD_DIR=build-release bash scripts/screenshots.sh runs   (only the two run monitors)
#   BUILD_DIR=build-release bash scripts/screenshots.sh graph  (only the graph, plan and costs)
set -euo pipefail
what="${1:-all}"
case "$what" in
  all | runs | graph) ;;
  *)
    echo "usage: screenshots.sh [all|runs|graph]" >&2
    exit 2
    ;;
esac
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

if [[ "$what" != runs ]]; then
  model="$work/gpt12.onnx"
  "$tapas" zoo gpt --layers 12 -o "$model"
  # A throwaway settings directory: the picture must not depend on the user's saved layout.
  XDG_CONFIG_HOME="$work/config" xvfb-run -a -s "-screen 0 1366x768x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en "$model" --screenshot "$here/docs/images/folded_gpt12.png" \
    --screenshot-size 1366x768
  # A start with recent models but none on the command line: the welcome page.
  mkdir -p "$work/config-welcome/Tapas"
  printf '[General]\nrecentFiles=%s\n' "$model" > "$work/config-welcome/Tapas/Tapas Studio.conf"
  XDG_CONFIG_HOME="$work/config-welcome" xvfb-run -a -s "-screen 0 1366x768x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en --screenshot "$here/docs/images/welcome.png" --screenshot-size 1366x768

  # The search needs concrete shapes: the same GPT with batch 8 and sequence 1024.
  planned="$work/gpt12_b8.onnx"
  "$tapas" zoo gpt --layers 12 --batch 8 --seq 1024 -o "$planned"
  XDG_CONFIG_HOME="$work/config-window" xvfb-run -a -s "-screen 0 1366x768x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en "$planned" --search a100x8:2x4 \
    --screenshot "$here/docs/images/plan_window.png" --screenshot-size 1366x768
  XDG_CONFIG_HOME="$work/config-plan" xvfb-run -a -s "-screen 0 1600x1000x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en "$planned" --search a100x8:2x4 \
    --screenshot-widget planDock --screenshot "$here/docs/images/plan_dock.png"
  XDG_CONFIG_HOME="$work/config-costs" xvfb-run -a -s "-screen 0 1600x1000x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en "$planned" --search a100x8:2x4 \
    --screenshot-widget costsDock --screenshot "$here/docs/images/costs_dock.png"
  # The same GPT on two pipeline stages (dp 1 x pp 2 x tp 4): the Plan dock's stage table and the
  # Costs dock's step time with the sends between stages and the bubble.
  XDG_CONFIG_HOME="$work/config-plan-stages" xvfb-run -a -s "-screen 0 1600x1000x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en "$planned" --search a100x8:1x2x4 \
    --screenshot-widget planDock --screenshot "$here/docs/images/plan_dock_stages.png"
  XDG_CONFIG_HOME="$work/config-costs-stages" xvfb-run -a -s "-screen 0 1600x1000x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en "$planned" --search a100x8:1x2x4 \
    --screenshot-widget costsDock --screenshot "$here/docs/images/costs_dock_stages.png"
fi
[[ "$what" == graph ]] && exit 0

# The Runs dock: real runs recorded by the workers, then opened from their directories.
# docs/images/gan_monitor.png: a 2-rank ParaGAN run on the ring of 8 Gaussians;
# docs/images/run_monitor.png: a 2-rank run of a 1x2 TAPAS plan of a small GPT (needs
# tapas-worker train-plan).
runs="$work/runs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
"$tapas" gan -np 2 --data ring8 --steps 1500 --checkpoint-every 500 --sample-every 100 --runs-dir "$runs" > "$work/gan.log"
gan_dir="$(ls -d "$runs"/*gan* | head -n 1)"
XDG_CONFIG_HOME="$work/config-gan" xvfb-run -a -s "-screen 0 1600x1000x24" \
  env QT_QPA_PLATFORM=xcb "$studio" --lang en --open-run "$gan_dir" \
  --screenshot-widget runsDock --screenshot "$here/docs/images/gan_monitor.png"
if "$build/bin/tapas-worker" --help | grep -q '^  train-plan'; then
  small="$work/gpt2_small.onnx"
  "$tapas" zoo gpt --layers 2 --hidden 64 --heads 4 --vocab 128 --seq 16 --batch 4 -o "$small"
  "$tapas" search "$small" --cluster cpu-mpi --mesh 1x2 --searchers tapas -o "$work/gpt2_small.tapas.json" > /dev/null
  "$tapas" run "$work/gpt2_small.tapas.json" "$small" -np 2 --steps 60 --runs-dir "$runs" > "$work/run.log"
  plan_dir="$(ls -d "$runs"/*train-plan* | head -n 1)"
  XDG_CONFIG_HOME="$work/config-run" xvfb-run -a -s "-screen 0 1600x1000x24" \
    env QT_QPA_PLATFORM=xcb "$studio" --lang en --open-run "$plan_dir" \
    --screenshot-widget runsDock --screenshot "$here/docs/images/run_monitor.png"
else
  echo "screenshots.sh: tapas-worker has no train-plan command; docs/images/run_monitor.png not updated" >&2
fi
