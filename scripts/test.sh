#!/usr/bin/env bash
# Builds everything (installing missing packages) and runs the whole test suite through ctest.
#   bash scripts/test.sh            # all suites (unit, GUI offscreen + Xvfb, MPI, fuzz)
#   bash scripts/test.sh -R fold    # extra arguments go to ctest
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh"
build_dir="${BUILD_DIR:-$here/build}"
cd "$build_dir"
# Serial on purpose: the GUI responsiveness and MPI suites measure time on a 2-core machine.
ctest --output-on-failure --timeout 900 "$@"
